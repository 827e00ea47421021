tpmtrace-profile 1
name: intc-intel-fw10.0.36.1030
vendor: INTC
chip: Intel
firmware: 10.0.36.1030
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020/09/18 07:58:01
source: crocs-muni/tpmscan-dataset, 0dc73b8e348c82b4
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: not imported (failed on the chip or unusable): Sign ecc-p256.sm2 (line 247, error 02d2); Sign ecc-p256.ecschnorr (line 258, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=100 mean=186.66048 p50=186.685 p90=189.037 p95=189.204 p99=191.086 stdev=2.051107 min=181.061 max=193.047  # Perf_Create:ECC_0x0003.csv, 100 samples (performance.yaml line 9)
Create             password   hmac           n=100 mean=3.50307 p50=3.568 p90=3.661 p95=3.672 p99=3.691 stdev=0.183324 min=2.995 max=3.703  # Perf_Create:HMAC.csv, 100 samples (performance.yaml line 19)
Create             password   rsa-1024       n=100 mean=5359.79578 p50=4366.188 p90=9480.073 p95=11151.442 p99=15310.744 stdev=3199.290787 min=1034.551 max=16497.101  # Perf_Create:RSA_1024.csv, 100 samples (performance.yaml line 29)
Create             password   rsa-2048       n=100 mean=28176.98724 p50=24648.996 p90=58519.056 p95=71328.086 p99=85720.695 stdev=20114.289536 min=15.46 max=90783.958  # Perf_Create:RSA_2048.csv, 100 samples (performance.yaml line 39)
GetRandom          none       32b            n=100 mean=1.31704 p50=1.343 p90=1.474 p95=1.52 p99=1.945 stdev=0.199159 min=0.974 max=2.295  # Perf_GetRandom.csv, 100 samples (performance.yaml line 51)
HMAC               password   sha256.256b    n=100 mean=1.51191 p50=1.416 p90=2.098 p95=2.181 p99=2.296 stdev=0.294487 min=1.129 max=2.369  # Perf_HMAC.csv, 100 samples (performance.yaml line 63)
Hash               none       sha1.256b      n=100 mean=1.36528 p50=1.362 p90=1.52 p95=2.005 p99=2.126 stdev=0.274698 min=0.97 max=2.21  # Perf_Hash:0x0004.csv, 100 samples (performance.yaml line 76)
Hash               none       sha256.256b    n=100 mean=1.3153 p50=1.37 p90=1.482 p95=1.497 p99=1.669 stdev=0.185987 min=0.963 max=2.004  # Perf_Hash:0x000b.csv, 100 samples (performance.yaml line 87)
RSA_Decrypt        password   rsa-1024.null  n=100 mean=271.03063 p50=270.98 p90=271.022 p95=271.059 p99=271.958 stdev=0.415107 min=270.854 max=275.009  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 100)
RSA_Decrypt        password   rsa-1024.rsaes n=100 mean=213.04125 p50=212.981 p90=213.023 p95=213.045 p99=213.529 stdev=0.508702 min=212.9 max=218.023  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 111)
RSA_Decrypt        password   rsa-1024.oaep  n=100 mean=214.00036 p50=213.979 p90=214.007 p95=214.025 p99=214.089 stdev=0.425026 min=213.022 max=218.015  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 122)
RSA_Decrypt        password   rsa-2048.null  n=100 mean=1363.11178 p50=1362.98 p90=1363.033 p95=1363.05 p99=1363.125 stdev=1.299064 min=1362.899 max=1375.966  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 133)
RSA_Decrypt        password   rsa-2048.rsaes n=100 mean=1233.70212 p50=1233.919 p90=1234.024 p95=1234.059 p99=1234.565 stdev=1.322915 min=1232.929 max=1245.923  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 144)
RSA_Decrypt        password   rsa-2048.oaep  n=100 mean=1236.13067 p50=1235.984 p90=1236.06 p95=1236.085 p99=1236.928 stdev=1.283061 min=1235.859 max=1248.756  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 155)
RSA_Encrypt        none       rsa-1024.null  n=100 mean=9.7139 p50=9.901 p90=9.997 p95=10.02 p99=10.048 stdev=0.329629 min=8.868 max=10.154  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 168)
RSA_Encrypt        none       rsa-1024.rsaes n=100 mean=8.45237 p50=8.389 p90=8.91 p95=8.954 p99=8.975 stdev=0.369908 min=7.586 max=8.985  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 179)
RSA_Encrypt        none       rsa-1024.oaep  n=100 mean=8.79297 p50=8.873 p90=8.997 p95=9.199 p99=9.492 stdev=0.349018 min=8.022 max=10.886  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 190)
RSA_Encrypt        none       rsa-2048.null  n=100 mean=20.98332 p50=20.98 p90=21.025 p95=21.077 p99=21.335 stdev=0.086424 min=20.558 max=21.409  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 201)
RSA_Encrypt        none       rsa-2048.rsaes n=100 mean=20.01441 p50=19.98 p90=20.054 p95=20.209 p99=20.777 stdev=0.163683 min=19.756 max=20.988  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 212)
RSA_Encrypt        none       rsa-2048.oaep  n=100 mean=21.00373 p50=20.98 p90=21.022 p95=21.046 p99=21.436 stdev=0.209511 min=20.464 max=22.908  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 223)
Sign               password   ecc-p256.ecdsa n=100 mean=187.1946 p50=186.997 p90=189.007 p95=189.981 p99=190.979 stdev=1.762159 min=183.243 max=191.979  # Perf_Sign:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 236)
Sign               password   rsa-1024.rsassa n=100 mean=213.03365 p50=212.979 p90=213.024 p95=213.051 p99=213.71 stdev=0.444301 min=212.884 max=217.352  # Perf_Sign:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 269)
Sign               password   rsa-1024.rsapss n=100 mean=213.56506 p50=213.935 p90=214.001 p95=214.006 p99=214.048 stdev=0.625974 min=212.872 max=217.434  # Perf_Sign:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 280)
Sign               password   rsa-2048.rsassa n=100 mean=1236.10408 p50=1235.981 p90=1236.029 p95=1236.035 p99=1236.064 stdev=1.243358 min=1235.879 max=1248.408  # Perf_Sign:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 291)
Sign               password   rsa-2048.rsapss n=100 mean=1237.39653 p50=1236.001 p90=1236.973 p95=1236.982 p99=1248.486 stdev=10.973087 min=1235.899 max=1345.277  # Perf_Sign:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 302)
VerifySignature    none       ecc-p256.ecdsa n=100 mean=68.03023 p50=67.98 p90=68.015 p95=68.245 p99=68.98 stdev=0.208391 min=67.897 max=68.98  # Perf_VerifySignature:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 315)
VerifySignature    none       rsa-1024.rsassa n=100 mean=8.29978 p50=8.309 p90=8.809 p95=8.904 p99=8.959 stdev=0.368127 min=7.602 max=8.968  # Perf_VerifySignature:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 326)
VerifySignature    none       rsa-1024.rsapss n=100 mean=8.7082 p50=8.812 p90=8.979 p95=9.003 p99=9.235 stdev=0.320333 min=8.169 max=10.271  # Perf_VerifySignature:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 337)
VerifySignature    none       rsa-2048.rsassa n=100 mean=19.99031 p50=19.98 p90=20.059 p95=20.128 p99=20.243 stdev=0.101941 min=19.725 max=20.719  # Perf_VerifySignature:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 348)
VerifySignature    none       rsa-2048.rsapss n=100 mean=20.95989 p50=20.98 p90=21.007 p95=21.019 p99=21.03 stdev=0.105539 min=20.338 max=21.125  # Perf_VerifySignature:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 359)
CreatePrimary      password   ecc-p256       derived=Create n=100 mean=186.66048 p50=186.685 p90=189.037 p95=189.204 p99=191.086 stdev=2.051107 min=181.061 max=193.047  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=100 mean=3.50307 p50=3.568 p90=3.661 p95=3.672 p99=3.691 stdev=0.183324 min=2.995 max=3.703  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=100 mean=5359.79578 p50=4366.188 p90=9480.073 p95=11151.442 p99=15310.744 stdev=3199.290787 min=1034.551 max=16497.101  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=100 mean=28176.98724 p50=24648.996 p90=58519.056 p95=71328.086 p99=85720.695 stdev=20114.289536 min=15.46 max=90783.958  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=100 mean=1.3153 p50=1.37 p90=1.482 p95=1.497 p99=1.669 stdev=0.185987 min=0.963 max=2.004  # derived: the figures of Hash sha256.256b (one digest)
