tpmtrace-profile 1
name: intc-intel-fw2.0.0.2056
vendor: INTC
chip: Intel
firmware: 2.0.0.2056
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020/08/22 10:35:47
source: crocs-muni/tpmscan-dataset, 09dd021a0ca3eeb3
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: not imported (failed on the chip or unusable): Sign ecc-p256.sm2 (line 247, error 02d2); Sign ecc-p256.ecschnorr (line 258, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=100 mean=106.81575 p50=106.789 p90=108.63 p95=108.825 p99=109.284 stdev=1.221995 min=103.756 max=109.291  # Perf_Create:ECC_0x0003.csv, 100 samples (performance.yaml line 9)
Create             password   hmac           n=100 mean=10.35673 p50=10.521 p90=10.971 p95=11.071 p99=11.251 stdev=0.617959 min=8.164 max=11.994  # Perf_Create:HMAC.csv, 100 samples (performance.yaml line 19)
Create             password   rsa-1024       n=100 mean=3351.74373 p50=3058.168 p90=5377.035 p95=6420.038 p99=8314.404 stdev=1567.369764 min=881.333 max=8807.54  # Perf_Create:RSA_1024.csv, 100 samples (performance.yaml line 29)
Create             password   rsa-2048       n=100 mean=13673.6773 p50=11399.88 p90=24950.055 p95=29625.416 p99=34608.678 stdev=8208.027443 min=2360.022 max=37409.223  # Perf_Create:RSA_2048.csv, 100 samples (performance.yaml line 39)
GetRandom          none       32b            n=100 mean=4.83983 p50=4.968 p90=5.275 p95=5.343 p99=5.464 stdev=0.45253 min=3.499 max=5.508  # Perf_GetRandom.csv, 100 samples (performance.yaml line 51)
HMAC               password   sha256.256b    n=100 mean=4.74821 p50=4.912 p90=5.334 p95=5.677 p99=5.901 stdev=0.588865 min=3.458 max=5.941  # Perf_HMAC.csv, 100 samples (performance.yaml line 63)
Hash               none       sha1.256b      n=100 mean=4.87329 p50=4.97 p90=5.353 p95=5.441 p99=6.922 stdev=0.682955 min=3.378 max=8.561  # Perf_Hash:0x0004.csv, 100 samples (performance.yaml line 76)
Hash               none       sha256.256b    n=100 mean=4.40408 p50=4.362 p90=5.139 p95=5.173 p99=5.264 stdev=0.596038 min=3.411 max=5.268  # Perf_Hash:0x000b.csv, 100 samples (performance.yaml line 87)
RSA_Decrypt        password   rsa-1024.null  n=100 mean=64.85612 p50=64.801 p90=65.675 p95=65.791 p99=65.924 stdev=0.668225 min=62.618 max=68.049  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 100)
RSA_Decrypt        password   rsa-1024.rsaes n=100 mean=67.14033 p50=67.179 p90=67.894 p95=68.087 p99=68.504 stdev=0.709572 min=65.028 max=70.003  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 111)
RSA_Decrypt        password   rsa-1024.oaep  n=100 mean=68.56046 p50=68.533 p90=69.256 p95=69.481 p99=70.338 stdev=0.720571 min=66.297 max=72.133  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 122)
RSA_Decrypt        password   rsa-2048.null  n=100 mean=231.42897 p50=231.328 p90=232 p95=232.137 p99=232.38 stdev=1.081562 min=228.947 max=240.971  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 133)
RSA_Decrypt        password   rsa-2048.rsaes n=100 mean=240.26842 p50=240.228 p90=240.792 p95=240.944 p99=241.158 stdev=1.049264 min=238.385 max=249.467  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 144)
RSA_Decrypt        password   rsa-2048.oaep  n=100 mean=242.1704 p50=242.023 p90=242.838 p95=243.207 p99=245.287 stdev=1.100903 min=240.468 max=250.992  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 155)
RSA_Encrypt        none       rsa-1024.null  n=100 mean=8.95007 p50=9.27 p90=10.168 p95=10.519 p99=10.931 stdev=1.147415 min=6.831 max=12.46  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 168)
RSA_Encrypt        none       rsa-1024.rsaes n=100 mean=10.17345 p50=10.341 p90=10.967 p95=11.036 p99=11.08 stdev=0.87301 min=7.742 max=11.478  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 179)
RSA_Encrypt        none       rsa-1024.oaep  n=100 mean=11.12818 p50=11.458 p90=11.915 p95=12.1 p99=12.674 stdev=0.839031 min=9.007 max=12.731  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 190)
RSA_Encrypt        none       rsa-2048.null  n=100 mean=11.24117 p50=11.388 p90=12.148 p95=12.612 p99=13.669 stdev=1.071076 min=8.612 max=16.603  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 201)
RSA_Encrypt        none       rsa-2048.rsaes n=100 mean=12.9415 p50=13.07 p90=13.903 p95=14.001 p99=14.069 stdev=0.952805 min=10.715 max=14.136  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 212)
RSA_Encrypt        none       rsa-2048.oaep  n=100 mean=14.32125 p50=14.648 p90=15.065 p95=15.172 p99=15.653 stdev=0.95869 min=11.86 max=17.939  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 223)
Sign               password   ecc-p256.ecdsa n=100 mean=104.00745 p50=103.971 p90=105.367 p95=105.927 p99=106.603 stdev=1.111851 min=101.643 max=106.661  # Perf_Sign:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 236)
Sign               password   rsa-1024.rsassa n=100 mean=67.75073 p50=67.824 p90=68.398 p95=68.62 p99=68.753 stdev=0.540334 min=65.905 max=68.797  # Perf_Sign:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 269)
Sign               password   rsa-1024.rsapss n=100 mean=68.63606 p50=68.735 p90=69.349 p95=69.513 p99=69.703 stdev=0.781251 min=65.985 max=72.153  # Perf_Sign:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 280)
Sign               password   rsa-2048.rsassa n=100 mean=240.79995 p50=240.728 p90=241.349 p95=241.554 p99=241.956 stdev=1.061569 min=239.169 max=250.016  # Perf_Sign:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 291)
Sign               password   rsa-2048.rsapss n=100 mean=242.7252 p50=242.725 p90=243.268 p95=243.393 p99=247.415 stdev=1.175356 min=240.02 max=251.39  # Perf_Sign:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 302)
VerifySignature    none       ecc-p256.ecdsa n=100 mean=42.18289 p50=42.147 p90=43.138 p95=43.388 p99=43.667 stdev=0.774963 min=39.987 max=44.418  # Perf_VerifySignature:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 315)
VerifySignature    none       rsa-1024.rsassa n=100 mean=9.78809 p50=10.007 p90=10.7 p95=10.852 p99=10.908 stdev=0.915091 min=7.809 max=11.293  # Perf_VerifySignature:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 326)
VerifySignature    none       rsa-1024.rsapss n=100 mean=10.56727 p50=10.675 p90=11.561 p95=11.903 p99=12.244 stdev=0.909024 min=8.034 max=13.519  # Perf_VerifySignature:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 337)
VerifySignature    none       rsa-2048.rsassa n=100 mean=12.35256 p50=12.63 p90=13.349 p95=13.655 p99=13.811 stdev=0.991382 min=9.893 max=13.917  # Perf_VerifySignature:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 348)
VerifySignature    none       rsa-2048.rsapss n=100 mean=13.32484 p50=13.557 p90=14.311 p95=14.363 p99=14.727 stdev=0.86625 min=11.072 max=14.843  # Perf_VerifySignature:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 359)
CreatePrimary      password   ecc-p256       derived=Create n=100 mean=106.81575 p50=106.789 p90=108.63 p95=108.825 p99=109.284 stdev=1.221995 min=103.756 max=109.291  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=100 mean=10.35673 p50=10.521 p90=10.971 p95=11.071 p99=11.251 stdev=0.617959 min=8.164 max=11.994  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=100 mean=3351.74373 p50=3058.168 p90=5377.035 p95=6420.038 p99=8314.404 stdev=1567.369764 min=881.333 max=8807.54  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=100 mean=13673.6773 p50=11399.88 p90=24950.055 p95=29625.416 p99=34608.678 stdev=8208.027443 min=2360.022 max=37409.223  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=100 mean=4.40408 p50=4.362 p90=5.139 p95=5.173 p99=5.264 stdev=0.596038 min=3.411 max=5.268  # derived: the figures of Hash sha256.256b (one digest)
