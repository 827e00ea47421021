tpmtrace-profile 1
name: intc-intel-fw10.0.60.3000
vendor: INTC
chip: Intel
firmware: 10.0.60.3000
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020/09/27 17:53:32
source: crocs-muni/tpmscan-dataset, abfc4233959254a9
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: not imported (failed on the chip or unusable): Sign ecc-p256.sm2 (line 247, error 02d2); Sign ecc-p256.ecschnorr (line 258, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=100 mean=188.63939 p50=188.679 p90=191.055 p95=191.973 p99=192.232 stdev=1.985838 min=181.977 max=192.672  # Perf_Create:ECC_0x0003.csv, 100 samples (performance.yaml line 9)
Create             password   hmac           n=100 mean=3.38487 p50=3.396 p90=3.588 p95=3.646 p99=3.98 stdev=0.429492 min=2.994 max=7.018  # Perf_Create:HMAC.csv, 100 samples (performance.yaml line 19)
Create             password   rsa-1024       n=100 mean=5170.47323 p50=4650.724 p90=8498.964 p95=10296.086 p99=16566.075 stdev=3434.551215 min=1048.071 max=24965.415  # Perf_Create:RSA_1024.csv, 100 samples (performance.yaml line 29)
Create             password   rsa-2048       n=100 mean=31754.3537 p50=27901.111 p90=59475.067 p95=71026.08 p99=103333.095 stdev=21245.878475 min=15.402 max=105154.545  # Perf_Create:RSA_2048.csv, 100 samples (performance.yaml line 39)
GetRandom          none       32b            n=100 mean=1.31909 p50=1.306 p90=1.426 p95=1.483 p99=1.529 stdev=0.456581 min=0.916 max=5.645  # Perf_GetRandom.csv, 100 samples (performance.yaml line 51)
HMAC               password   sha256.256b    n=100 mean=1.5033 p50=1.39 p90=2.091 p95=2.363 p99=2.457 stdev=0.343836 min=1.095 max=2.633  # Perf_HMAC.csv, 100 samples (performance.yaml line 63)
Hash               none       sha1.256b      n=100 mean=1.25885 p50=1.182 p90=1.968 p95=1.99 p99=2 stdev=0.312993 min=0.958 max=2.37  # Perf_Hash:0x0004.csv, 100 samples (performance.yaml line 76)
Hash               none       sha256.256b    n=100 mean=1.35023 p50=1.344 p90=1.496 p95=2.039 p99=2.218 stdev=0.274942 min=0.964 max=2.444  # Perf_Hash:0x000b.csv, 100 samples (performance.yaml line 87)
RSA_Decrypt        password   rsa-1024.null  n=100 mean=115.84811 p50=115.947 p90=116.055 p95=116.088 p99=116.406 stdev=0.597423 min=114.962 max=120.494  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 100)
RSA_Decrypt        password   rsa-1024.rsaes n=100 mean=60.0628 p50=59.993 p90=60.058 p95=60.31 p99=60.913 stdev=0.432034 min=59.883 max=63.972  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 111)
RSA_Decrypt        password   rsa-1024.oaep  n=100 mean=60.8433 p50=60.963 p90=61.019 p95=61.048 p99=61.086 stdev=0.550405 min=59.98 max=65.035  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 122)
RSA_Decrypt        password   rsa-2048.null  n=100 mean=457.18247 p50=456.998 p90=457.123 p95=457.921 p99=457.947 stdev=1.32989 min=456.56 max=470.108  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 133)
RSA_Decrypt        password   rsa-2048.rsaes n=100 mean=341.12391 p50=340.987 p90=341.08 p95=341.391 p99=341.629 stdev=1.212678 min=340.552 max=353.043  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 144)
RSA_Decrypt        password   rsa-2048.oaep  n=100 mean=342.15265 p50=341.989 p90=342.069 p95=342.441 p99=343.01 stdev=1.306922 min=341.842 max=354.98  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 155)
RSA_Encrypt        none       rsa-1024.null  n=100 mean=9.57626 p50=9.694 p90=9.981 p95=10.01 p99=10.066 stdev=0.360629 min=8.789 max=10.067  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 168)
RSA_Encrypt        none       rsa-1024.rsaes n=100 mean=8.41407 p50=8.414 p90=8.879 p95=8.977 p99=9.014 stdev=0.343539 min=7.82 max=9.049  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 179)
RSA_Encrypt        none       rsa-1024.oaep  n=100 mean=8.79513 p50=8.809 p90=9.159 p95=9.306 p99=9.345 stdev=0.310017 min=8.037 max=9.861  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 190)
RSA_Encrypt        none       rsa-2048.null  n=100 mean=21.03675 p50=20.994 p90=21.262 p95=21.609 p99=21.873 stdev=0.244971 min=20.342 max=21.893  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 201)
RSA_Encrypt        none       rsa-2048.rsaes n=100 mean=20.30695 p50=20.047 p90=20.979 p95=20.989 p99=21.014 stdev=0.416517 min=19.855 max=21.024  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 212)
RSA_Encrypt        none       rsa-2048.oaep  n=100 mean=21.04618 p50=20.99 p90=21.247 p95=21.741 p99=21.909 stdev=0.251052 min=20.352 max=21.91  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 223)
Sign               password   ecc-p256.ecdsa n=100 mean=189.02378 p50=189.029 p90=190.995 p95=191.078 p99=192.001 stdev=1.91783 min=183.009 max=193.046  # Perf_Sign:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 236)
Sign               password   rsa-1024.rsassa n=100 mean=60.10914 p50=59.992 p90=60.222 p95=60.9 p99=61.01 stdev=0.516606 min=59.808 max=64.567  # Perf_Sign:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 269)
Sign               password   rsa-1024.rsapss n=100 mean=60.79297 p50=60.944 p90=61.045 p95=61.066 p99=61.131 stdev=0.586186 min=59.921 max=64.998  # Perf_Sign:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 280)
Sign               password   rsa-2048.rsassa n=100 mean=341.92295 p50=341.913 p90=342.049 p95=342.104 p99=350.015 stdev=1.665697 min=340.879 max=354.019  # Perf_Sign:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 291)
Sign               password   rsa-2048.rsapss n=100 mean=341.5235 p50=341.079 p90=342.013 p95=342.036 p99=342.061 stdev=1.344351 min=340.858 max=353.998  # Perf_Sign:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 302)
VerifySignature    none       ecc-p256.ecdsa n=100 mean=66.06377 p50=65.991 p90=66.117 p95=66.926 p99=67.029 stdev=0.266471 min=65.794 max=67.034  # Perf_VerifySignature:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 315)
VerifySignature    none       rsa-1024.rsassa n=100 mean=8.37337 p50=8.343 p90=8.814 p95=8.905 p99=8.938 stdev=0.319759 min=7.695 max=9.014  # Perf_VerifySignature:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 326)
VerifySignature    none       rsa-1024.rsapss n=100 mean=8.61401 p50=8.632 p90=9.012 p95=9.046 p99=9.323 stdev=0.311255 min=7.985 max=9.365  # Perf_VerifySignature:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 337)
VerifySignature    none       rsa-2048.rsassa n=100 mean=20.38211 p50=20.057 p90=21 p95=21.031 p99=21.084 stdev=0.482349 min=19.629 max=21.617  # Perf_VerifySignature:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 348)
VerifySignature    none       rsa-2048.rsapss n=100 mean=20.95268 p50=20.983 p90=21.038 p95=21.078 p99=21.297 stdev=0.154562 min=20.164 max=21.324  # Perf_VerifySignature:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 359)
CreatePrimary      password   ecc-p256       derived=Create n=100 mean=188.63939 p50=188.679 p90=191.055 p95=191.973 p99=192.232 stdev=1.985838 min=181.977 max=192.672  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=100 mean=3.38487 p50=3.396 p90=3.588 p95=3.646 p99=3.98 stdev=0.429492 min=2.994 max=7.018  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=100 mean=5170.47323 p50=4650.724 p90=8498.964 p95=10296.086 p99=16566.075 stdev=3434.551215 min=1048.071 max=24965.415  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=100 mean=31754.3537 p50=27901.111 p90=59475.067 p95=71026.08 p99=103333.095 stdev=21245.878475 min=15.402 max=105154.545  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=100 mean=1.35023 p50=1.344 p90=1.496 p95=2.039 p99=2.218 stdev=0.274942 min=0.964 max=2.444  # derived: the figures of Hash sha256.256b (one digest)
