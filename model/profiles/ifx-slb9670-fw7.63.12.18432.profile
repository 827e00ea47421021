tpmtrace-profile 1
name: ifx-slb9670-fw7.63.12.18432
vendor: IFX
chip: SLB9670
firmware: 7.63.12.18432
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2021/02/04 11:11:13
source: crocs-muni/tpmscan-dataset, e93b69b5050100c9
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: not imported (failed on the chip or unusable): Create ecc-bnp256 (line 19, error 02d2); EncryptDecrypt aes-128.cfb.decrypt.256b (line 71, error 0143); EncryptDecrypt aes-128.cfb.encrypt.256b (line 85, error 0143); Sign ecc-p256.sm2 (line 297, error 02d2); Sign ecc-p256.ecschnorr (line 308, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=100 mean=109.32675 p50=109.542 p90=109.651 p95=109.794 p99=109.981 stdev=0.46469 min=108.41 max=110.014  # Perf_Create:ECC_0x0003.csv, 100 samples (performance.yaml line 9)
Create             password   hmac           n=100 mean=55.51367 p50=55.522 p90=55.683 p95=55.74 p99=55.821 stdev=0.182259 min=54.877 max=56.072  # Perf_Create:HMAC.csv, 100 samples (performance.yaml line 29)
Create             password   rsa-1024       n=100 mean=3281.33517 p50=2955.883 p90=4882.352 p95=6459.972 p99=7701.905 stdev=1440.026115 min=1400.792 max=7845.313  # Perf_Create:RSA_1024.csv, 100 samples (performance.yaml line 39)
Create             password   rsa-2048       n=100 mean=12058.96608 p50=10583.792 p90=19130.724 p95=24965.557 p99=35604.566 stdev=7110.56699 min=81.529 max=36640.676  # Perf_Create:RSA_2048.csv, 100 samples (performance.yaml line 49)
Create             password   aes-128        n=100 mean=53.07019 p50=53.39 p90=53.56 p95=53.587 p99=53.766 stdev=0.515114 min=51.802 max=53.812  # Perf_Create:SYMCIPHER_0x0006_128.csv, 100 samples (performance.yaml line 59)
GetRandom          none       32b            n=100 mean=3.99786 p50=3.996 p90=4.046 p95=4.094 p99=4.125 stdev=0.044135 min=3.838 max=4.189  # Perf_GetRandom.csv, 100 samples (performance.yaml line 101)
HMAC               password   sha256.256b    n=100 mean=14.05236 p50=13.995 p90=14.105 p95=14.156 p99=14.992 stdev=0.286505 min=13.831 max=16.042  # Perf_HMAC.csv, 100 samples (performance.yaml line 113)
Hash               none       sha1.256b      n=100 mean=5.03517 p50=4.998 p90=5.096 p95=5.109 p99=5.84 stdev=0.172669 min=4.768 max=5.841  # Perf_Hash:0x0004.csv, 100 samples (performance.yaml line 126)
Hash               none       sha256.256b    n=100 mean=5.03624 p50=4.997 p90=5.057 p95=5.149 p99=5.935 stdev=0.186103 min=4.875 max=6.085  # Perf_Hash:0x000b.csv, 100 samples (performance.yaml line 137)
RSA_Decrypt        password   rsa-1024.null  n=100 mean=75.47383 p50=75.098 p90=76.149 p95=77.014 p99=78.081 stdev=0.904265 min=73.826 max=78.861  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 150)
RSA_Decrypt        password   rsa-1024.rsaes n=100 mean=75.87937 p50=75.966 p90=76.994 p95=77.041 p99=77.796 stdev=0.874828 min=73.984 max=78.903  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 161)
RSA_Decrypt        password   rsa-1024.oaep  n=100 mean=79.06984 p50=78.995 p90=79.999 p95=80.153 p99=81.101 stdev=0.787013 min=77.879 max=81.989  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 172)
RSA_Decrypt        password   rsa-2048.null  n=100 mean=164.47166 p50=164.034 p90=166.042 p95=166.983 p99=168.124 stdev=1.263133 min=160.97 max=168.142  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 183)
RSA_Decrypt        password   rsa-2048.rsaes n=100 mean=164.37507 p50=164.021 p90=165.991 p95=166.077 p99=167.096 stdev=1.163148 min=161.812 max=167.097  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 194)
RSA_Decrypt        password   rsa-2048.oaep  n=100 mean=170.69483 p50=170.922 p90=172.007 p95=172.081 p99=174.075 stdev=1.234515 min=167.905 max=174.076  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 205)
RSA_Encrypt        none       rsa-1024.null  n=100 mean=6.93941 p50=6.996 p90=7.052 p95=7.103 p99=7.285 stdev=0.27187 min=5.844 max=8.052  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 218)
RSA_Encrypt        none       rsa-1024.rsaes n=100 mean=8.66906 p50=8.988 p90=9.02 p95=9.034 p99=9.074 stdev=0.46307 min=7.841 max=9.079  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 229)
RSA_Encrypt        none       rsa-1024.oaep  n=100 mean=10.93894 p50=10.996 p90=11.044 p95=11.154 p99=11.263 stdev=0.284715 min=9.912 max=12.07  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 240)
RSA_Encrypt        none       rsa-2048.null  n=100 mean=10.30013 p50=10.003 p90=11.038 p95=11.076 p99=11.093 stdev=0.469717 min=9.79 max=11.12  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 251)
RSA_Encrypt        none       rsa-2048.rsaes n=100 mean=15.87944 p50=15.993 p90=16.082 p95=16.091 p99=16.668 stdev=0.358827 min=14.898 max=16.908  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 262)
RSA_Encrypt        none       rsa-2048.oaep  n=100 mean=16.98851 p50=16.992 p90=17.089 p95=17.114 p99=17.295 stdev=0.144843 min=16.091 max=17.719  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 273)
Sign               password   ecc-p256.ecdsa n=100 mean=70.02239 p50=69.993 p90=70.102 p95=70.14 p99=70.981 stdev=0.183222 min=69.826 max=70.997  # Perf_Sign:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 286)
Sign               password   rsa-1024.rsassa n=100 mean=75.23474 p50=74.997 p90=76.08 p95=76.247 p99=79.012 stdev=0.968921 min=73.104 max=79.071  # Perf_Sign:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 319)
Sign               password   rsa-1024.rsapss n=100 mean=83.81599 p50=83.966 p90=85.077 p95=85.149 p99=86.073 stdev=0.929183 min=81.894 max=86.097  # Perf_Sign:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 330)
Sign               password   rsa-2048.rsassa n=100 mean=164.48966 p50=164.081 p90=166.037 p95=166.096 p99=167.948 stdev=1.329073 min=161.068 max=168.022  # Perf_Sign:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 341)
Sign               password   rsa-2048.rsapss n=100 mean=179.00985 p50=178.988 p90=180.085 p95=180.989 p99=181.118 stdev=1.156747 min=176.875 max=182.04  # Perf_Sign:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 352)
VerifySignature    none       ecc-p256.ecdsa n=100 mean=106.14934 p50=106.007 p90=106.989 p95=107.018 p99=107.076 stdev=0.555549 min=104.968 max=107.092  # Perf_VerifySignature:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 365)
VerifySignature    none       rsa-1024.rsassa n=100 mean=6.89076 p50=6.992 p90=7.06 p95=7.075 p99=7.237 stdev=0.312518 min=5.993 max=7.994  # Perf_VerifySignature:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 376)
VerifySignature    none       rsa-1024.rsapss n=100 mean=16.2592 p50=16.05 p90=17.021 p95=17.076 p99=17.114 stdev=0.468106 min=15.511 max=17.156  # Perf_VerifySignature:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 387)
VerifySignature    none       rsa-2048.rsassa n=100 mean=10.81511 p50=10.982 p90=11.04 p95=11.152 p99=12.005 stdev=0.472185 min=9.983 max=12.085  # Perf_VerifySignature:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 398)
VerifySignature    none       rsa-2048.rsapss n=100 mean=24.67328 p50=24.906 p90=25.078 p95=25.092 p99=25.997 stdev=0.538057 min=23.89 max=26.844  # Perf_VerifySignature:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 409)
CreatePrimary      password   ecc-p256       derived=Create n=100 mean=109.32675 p50=109.542 p90=109.651 p95=109.794 p99=109.981 stdev=0.46469 min=108.41 max=110.014  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=100 mean=55.51367 p50=55.522 p90=55.683 p95=55.74 p99=55.821 stdev=0.182259 min=54.877 max=56.072  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=100 mean=3281.33517 p50=2955.883 p90=4882.352 p95=6459.972 p99=7701.905 stdev=1440.026115 min=1400.792 max=7845.313  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=100 mean=12058.96608 p50=10583.792 p90=19130.724 p95=24965.557 p99=35604.566 stdev=7110.56699 min=81.529 max=36640.676  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=100 mean=53.07019 p50=53.39 p90=53.56 p95=53.587 p99=53.766 stdev=0.515114 min=51.802 max=53.812  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=100 mean=5.03624 p50=4.997 p90=5.057 p95=5.149 p99=5.935 stdev=0.186103 min=4.875 max=6.085  # derived: the figures of Hash sha256.256b (one digest)
