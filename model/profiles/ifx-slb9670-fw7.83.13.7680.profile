tpmtrace-profile 1
name: ifx-slb9670-fw7.83.13.7680
vendor: IFX
chip: SLB9670 FIPS
firmware: 7.83.13.7680
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020/09/26 10:22:15
source: crocs-muni/tpmscan-dataset, 6319829e08ac0e68
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: not imported (failed on the chip or unusable): Create ecc-bnp256 (line 19, error 02d2); EncryptDecrypt aes-128.cfb.decrypt.256b (line 71, error 0143); EncryptDecrypt aes-128.cfb.encrypt.256b (line 85, error 0143); Sign ecc-p256.sm2 (line 297, error 02d2); Sign ecc-p256.ecschnorr (line 308, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=100 mean=215.81391 p50=215.968 p90=216.517 p95=217.189 p99=217.335 stdev=0.721839 min=213.726 max=217.48  # Perf_Create:ECC_0x0003.csv, 100 samples (performance.yaml line 9)
Create             password   hmac           n=100 mean=54.1249 p50=54.188 p90=54.285 p95=54.371 p99=54.54 stdev=0.244843 min=53.517 max=54.619  # Perf_Create:HMAC.csv, 100 samples (performance.yaml line 29)
Create             password   rsa-1024       n=100 mean=1897.00456 p50=1676.563 p90=3159.406 p95=3695.525 p99=4809.909 stdev=1057.669471 min=352.461 max=6047.455  # Perf_Create:RSA_1024.csv, 100 samples (performance.yaml line 39)
Create             password   rsa-2048       n=100 mean=9908.68111 p50=8093 p90=21222.135 p95=25149.082 p99=34985.027 stdev=7646.227082 min=81.992 max=39592.044  # Perf_Create:RSA_2048.csv, 100 samples (performance.yaml line 49)
Create             password   aes-128        n=100 mean=51.97801 p50=52.142 p90=52.266 p95=52.291 p99=52.538 stdev=0.350642 min=51.132 max=52.541  # Perf_Create:SYMCIPHER_0x0006_128.csv, 100 samples (performance.yaml line 59)
GetRandom          none       32b            n=100 mean=3.96076 p50=3.986 p90=4.111 p95=4.145 p99=4.168 stdev=0.168079 min=3.105 max=4.207  # Perf_GetRandom.csv, 100 samples (performance.yaml line 101)
HMAC               password   sha256.256b    n=100 mean=13.80073 p50=13.98 p90=14.086 p95=14.097 p99=14.115 stdev=0.473246 min=12.846 max=16.004  # Perf_HMAC.csv, 100 samples (performance.yaml line 113)
Hash               none       sha1.256b      n=100 mean=4.51293 p50=4.76 p90=4.812 p95=4.978 p99=4.994 stdev=0.340489 min=3.854 max=5.122  # Perf_Hash:0x0004.csv, 100 samples (performance.yaml line 126)
Hash               none       sha256.256b    n=100 mean=4.60401 p50=4.791 p90=4.854 p95=4.859 p99=4.979 stdev=0.287063 min=3.97 max=4.986  # Perf_Hash:0x000b.csv, 100 samples (performance.yaml line 137)
RSA_Decrypt        password   rsa-1024.null  n=100 mean=75.04607 p50=74.974 p90=75.987 p95=76.857 p99=77.082 stdev=0.806459 min=73.892 max=77.106  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 150)
RSA_Decrypt        password   rsa-1024.rsaes n=100 mean=75.48516 p50=75.076 p90=76.886 p95=76.971 p99=77.079 stdev=0.943895 min=72.972 max=79.085  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 161)
RSA_Decrypt        password   rsa-1024.oaep  n=100 mean=79.05371 p50=78.978 p90=80.016 p95=80.072 p99=80.973 stdev=0.853885 min=77.086 max=82.038  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 172)
RSA_Decrypt        password   rsa-2048.null  n=100 mean=163.95057 p50=163.973 p90=165.078 p95=165.956 p99=165.986 stdev=1.495459 min=160.864 max=172.96  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 183)
RSA_Decrypt        password   rsa-2048.rsaes n=100 mean=164.29279 p50=164.067 p90=165.966 p95=166.174 p99=166.987 stdev=1.304197 min=161.761 max=168.984  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 194)
RSA_Decrypt        password   rsa-2048.oaep  n=100 mean=168.92074 p50=168.974 p90=170.947 p95=170.992 p99=171.873 stdev=1.330482 min=166.069 max=171.994  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 205)
RSA_Encrypt        none       rsa-1024.null  n=100 mean=6.17639 p50=5.995 p90=6.874 p95=6.966 p99=6.984 stdev=0.360966 min=5.931 max=7.005  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv, 100 samples (performance.yaml line 218)
RSA_Encrypt        none       rsa-1024.rsaes n=100 mean=8.15461 p50=7.985 p90=8.979 p95=8.99 p99=9.006 stdev=0.406343 min=7.839 max=10.007  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv, 100 samples (performance.yaml line 229)
RSA_Encrypt        none       rsa-1024.oaep  n=100 mean=10.22466 p50=9.994 p90=10.982 p95=10.991 p99=11.01 stdev=0.427905 min=9.834 max=11.034  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv, 100 samples (performance.yaml line 240)
RSA_Encrypt        none       rsa-2048.null  n=100 mean=10.23604 p50=9.997 p90=10.974 p95=10.993 p99=11.111 stdev=0.426194 min=9.87 max=11.138  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv, 100 samples (performance.yaml line 251)
RSA_Encrypt        none       rsa-2048.rsaes n=100 mean=15.40392 p50=15.103 p90=15.984 p95=16.006 p99=16.087 stdev=0.50248 min=13.977 max=16.089  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv, 100 samples (performance.yaml line 262)
RSA_Encrypt        none       rsa-2048.oaep  n=100 mean=16.63157 p50=16.873 p90=17.081 p95=17.104 p99=17.119 stdev=0.49307 min=15.837 max=17.986  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv, 100 samples (performance.yaml line 273)
Sign               password   ecc-p256.ecdsa n=100 mean=69.46839 p50=69.122 p90=70.05 p95=70.069 p99=70.091 stdev=0.508151 min=68.828 max=70.098  # Perf_Sign:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 286)
Sign               password   rsa-1024.rsassa n=100 mean=75.03868 p50=74.975 p90=75.974 p95=76.024 p99=76.318 stdev=0.709245 min=72.961 max=76.962  # Perf_Sign:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 319)
Sign               password   rsa-1024.rsapss n=100 mean=81.22697 p50=81.001 p90=82.023 p95=82.908 p99=82.997 stdev=0.792149 min=79.864 max=83.004  # Perf_Sign:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 330)
Sign               password   rsa-2048.rsassa n=100 mean=163.49668 p50=163.881 p90=164.966 p95=165.166 p99=166.937 stdev=1.280254 min=160.942 max=167.022  # Perf_Sign:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 341)
Sign               password   rsa-2048.rsapss n=100 mean=170.87498 p50=170.975 p90=172.073 p95=173.909 p99=174.02 stdev=1.39965 min=167.901 max=174.98  # Perf_Sign:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 352)
VerifySignature    none       ecc-p256.ecdsa n=100 mean=105.19164 p50=105 p90=105.983 p95=106.034 p99=106.087 stdev=0.594586 min=103.88 max=106.981  # Perf_VerifySignature:ECC_0x0003_0x0018.csv, 100 samples (performance.yaml line 365)
VerifySignature    none       rsa-1024.rsassa n=100 mean=6.92901 p50=6.982 p90=7.004 p95=7.015 p99=7.038 stdev=0.221506 min=5.977 max=7.045  # Perf_VerifySignature:RSA_1024_0x0014.csv, 100 samples (performance.yaml line 376)
VerifySignature    none       rsa-1024.rsapss n=100 mean=14.23618 p50=14.015 p90=14.862 p95=14.865 p99=14.873 stdev=0.401796 min=13.938 max=16.001  # Perf_VerifySignature:RSA_1024_0x0016.csv, 100 samples (performance.yaml line 387)
VerifySignature    none       rsa-2048.rsassa n=100 mean=10.89551 p50=10.982 p90=11.01 p95=11.029 p99=13.05 stdev=0.712546 min=9.852 max=15.973  # Perf_VerifySignature:RSA_2048_0x0014.csv, 100 samples (performance.yaml line 398)
VerifySignature    none       rsa-2048.rsapss n=100 mean=21.58882 p50=21.877 p90=22.061 p95=22.073 p99=22.086 stdev=0.475665 min=20.828 max=22.103  # Perf_VerifySignature:RSA_2048_0x0016.csv, 100 samples (performance.yaml line 409)
CreatePrimary      password   ecc-p256       derived=Create n=100 mean=215.81391 p50=215.968 p90=216.517 p95=217.189 p99=217.335 stdev=0.721839 min=213.726 max=217.48  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=100 mean=54.1249 p50=54.188 p90=54.285 p95=54.371 p99=54.54 stdev=0.244843 min=53.517 max=54.619  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=100 mean=1897.00456 p50=1676.563 p90=3159.406 p95=3695.525 p99=4809.909 stdev=1057.669471 min=352.461 max=6047.455  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=100 mean=9908.68111 p50=8093 p90=21222.135 p95=25149.082 p99=34985.027 stdev=7646.227082 min=81.992 max=39592.044  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=100 mean=51.97801 p50=52.142 p90=52.266 p95=52.291 p99=52.538 stdev=0.350642 min=51.132 max=52.541  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=100 mean=4.60401 p50=4.791 p90=4.854 p95=4.859 p99=4.979 stdev=0.287063 min=3.97 max=4.986  # derived: the figures of Hash sha256.256b (one digest)
