tpmtrace-profile 1
name: ifx-slb9670-fw7.63.13.6400
vendor: IFX
chip: SLB9670
firmware: 7.63.13.6400
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/04/26 01:36:21
source: crocs-muni/tpmscan-dataset, 10592ce1105e9509 a149f4badbd3c9d7 bf37b0d258b57b6c c2526d443325f0e4 c68cbbba2448daf7
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: 20L8S2N80D; Linux algtest-live 6.1.9-200.fc37.x86_64 #1 SMP PREEMPT_DYNAMIC Thu Feb  2 00:21:48 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 5 runs of this chip and firmware merged: their samples pooled, min and max over all
note: not imported (failed on the chip or unusable): Create ecc-bnp256 (line 19, error 02d2); EncryptDecrypt aes-128.cfb.decrypt.256b (line 71, error 0143); EncryptDecrypt aes-128.cfb.encrypt.256b (line 85, error 0143); Sign ecc-p256.sm2 (line 297, error 02d2); Sign ecc-p256.ecschnorr (line 308, error 02d2); Create ecc-bnp256 (line 19, error 02d2); EncryptDecrypt aes-128.cfb.decrypt.256b (line 71, error 0143); EncryptDecrypt aes-128.cfb.encrypt.256b (line 85, error 0143); Sign ecc-p256.sm2 (line 297, error 02d2); Sign ecc-p256.ecschnorr (line 308, error 02d2); Create ecc-bnp256 (line 19, error 02d2); EncryptDecrypt aes-128.cfb.decrypt.256b (line 71, error 0143); EncryptDecrypt aes-128.cfb.encrypt.256b (line 85, error 0143); Sign ecc-p256.sm2 (line 297, error 02d2); Sign ecc-p256.ecschnorr (line 308, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=1300 mean=108.317483 p50=108.296087 p90=109.106764 p95=109.684 p99=109.835 stdev=0.701636 min=105.989 max=110.095  # Perf_Create:ECC_0x0003.csv of 4 runs, 1300 samples
Create             password   ecc-bnp256     n=1000 mean=107.809109 p50=107.733351 p90=108.154093 p95=108.437963 p99=108.987025 stdev=0.36317 min=106.683091 max=110.622476  # Perf_Create:ECC_0x0010.csv of 1 runs, 1000 samples
Create             password   hmac           n=1300 mean=54.851098 p50=54.694655 p90=55.672 p95=55.812 p99=56.146 stdev=0.601235 min=52.911 max=65.356135  # Perf_Create:HMAC.csv of 4 runs, 1300 samples
Create             password   rsa-1024       n=1300 mean=2935.341337 p50=2675.100065 p90=4517.511741 p95=5263.060983 p99=6935.062117 stdev=1231.51767 min=1204.235 max=10161.205  # Perf_Create:RSA_1024.csv of 4 runs, 1300 samples
Create             password   rsa-2048       n=1300 mean=11596.422353 p50=10343.027 p90=20054.608958 p95=23135.890598 p99=32291.109053 stdev=6344.331755 min=78.697 max=50473.849457  # Perf_Create:RSA_2048.csv of 4 runs, 1300 samples
Create             password   aes-128        n=1300 mean=52.646686 p50=52.616353 p90=53.153644 p95=53.609842 p99=54.017481 stdev=0.555959 min=50.888 max=60.594668  # Perf_Create:SYMCIPHER_0x0006_128.csv of 4 runs, 1300 samples
GetRandom          none       32b            n=2300 mean=3.928781 p50=3.981199 p90=4.196853 p95=4.341068 p99=4.732982 stdev=0.295393 min=2.434 max=5.502261  # Perf_GetRandom.csv of 5 runs, 2300 samples
HMAC               password   sha256.256b    n=1300 mean=14.008144 p50=13.982666 p90=14.873505 p95=14.983736 p99=15.107077 stdev=0.541377 min=12.881127 max=16.208518  # Perf_HMAC.csv of 4 runs, 1300 samples
Hash               none       sha1.256b      n=2300 mean=4.818574 p50=4.977884 p90=5.19923 p95=5.559307 p99=5.986309 stdev=0.474665 min=3.319 max=7.138  # Perf_Hash:0x0004.csv of 5 runs, 2300 samples
Hash               none       sha256.256b    n=2300 mean=4.797287 p50=4.973804 p90=5.227543 p95=5.696316 p99=6.016801 stdev=0.509637 min=3.364152 max=7.842  # Perf_Hash:0x000b.csv of 5 runs, 2300 samples
RSA_Decrypt        password   rsa-1024.null  n=1300 mean=75.230761 p50=75.021814 p90=76.234917 p95=76.970519 p99=77.998336 stdev=1.086429 min=71.875 max=83.174611  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 4 runs, 1300 samples
RSA_Decrypt        password   rsa-1024.rsaes n=1300 mean=74.990988 p50=74.972903 p90=76.061832 p95=76.943687 p99=77.968 stdev=1.096595 min=71.879 max=83.953664  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 4 runs, 1300 samples
RSA_Decrypt        password   rsa-1024.oaep  n=1300 mean=78.891512 p50=78.97 p90=80.057895 p95=80.853201 p99=81.956323 stdev=1.16067 min=75.702 max=87.07201  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 4 runs, 1300 samples
RSA_Decrypt        password   rsa-2048.null  n=1300 mean=163.988786 p50=163.976612 p90=165.990858 p95=166.943531 p99=167.977 stdev=1.775556 min=158.924 max=175.159934  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 4 runs, 1300 samples
RSA_Decrypt        password   rsa-2048.rsaes n=1300 mean=163.889812 p50=163.966237 p90=165.920615 p95=166.080176 p99=167.765059 stdev=1.560143 min=158.963 max=174.095761  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 4 runs, 1300 samples
RSA_Decrypt        password   rsa-2048.oaep  n=1300 mean=169.50253 p50=169.505627 p90=171.407903 p95=171.99597 p99=173.015839 stdev=1.631971 min=164.71 max=178.411244  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 4 runs, 1300 samples
RSA_Encrypt        none       rsa-1024.null  n=1300 mean=6.520862 p50=6.544245 p90=7.063445 p95=7.200209 p99=7.377953 stdev=0.474359 min=5.2 max=8.148803  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 4 runs, 1300 samples
RSA_Encrypt        none       rsa-1024.rsaes n=1300 mean=8.332937 p50=8.09887 p90=9.004581 p95=9.112802 p99=9.425407 stdev=0.530222 min=6.964 max=14.574  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 4 runs, 1300 samples
RSA_Encrypt        none       rsa-1024.oaep  n=1300 mean=10.486154 p50=10.444872 p90=11.031285 p95=11.139 p99=11.584295 stdev=0.544514 min=9.043 max=14.691078  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 4 runs, 1300 samples
RSA_Encrypt        none       rsa-2048.null  n=1300 mean=10.19907 p50=9.995324 p90=10.991798 p95=11.017396 p99=11.186906 stdev=0.529414 min=8.87 max=12.009607  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 4 runs, 1300 samples
RSA_Encrypt        none       rsa-2048.rsaes n=1300 mean=15.573897 p50=15.933202 p90=16.118 p95=16.177 p99=16.970125 stdev=0.66441 min=13.76 max=23.917562  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 4 runs, 1300 samples
RSA_Encrypt        none       rsa-2048.oaep  n=1300 mean=16.706868 p50=16.962812 p90=17.089952 p95=17.187417 p99=17.940974 stdev=0.512751 min=14.882 max=18.350803  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 4 runs, 1300 samples
Sign               password   ecc-p256.ecdsa n=1300 mean=69.895245 p50=69.969379 p90=70.337462 p95=70.983255 p99=71.161116 stdev=0.597884 min=67.796 max=77.984127  # Perf_Sign:ECC_0x0003_0x0018.csv of 4 runs, 1300 samples
Sign               password   ecc-p256.ecdaa n=1000 mean=40.758377 p50=40.92641 p90=41.146054 p95=41.268248 p99=41.58082 stdev=0.541703 min=39.519913 max=48.555494  # Perf_Sign:ECC_0x0003_0x001a.csv of 1 runs, 1000 samples
Sign               password   ecc-bnp256.ecdaa n=1000 mean=40.865475 p50=40.941277 p90=41.136469 p95=41.172384 p99=41.590694 stdev=0.491392 min=39.713575 max=48.923718  # Perf_Sign:ECC_0x0010_0x001a.csv of 1 runs, 1000 samples
Sign               password   rsa-1024.rsassa n=1300 mean=75.220111 p50=75.011 p90=76.22101 p95=76.954807 p99=77.972094 stdev=1.05235 min=71.87 max=84.017769  # Perf_Sign:RSA_1024_0x0014.csv of 4 runs, 1300 samples
Sign               password   rsa-1024.rsapss n=1300 mean=83.822612 p50=83.960751 p90=84.991636 p95=85.759782 p99=86.812292 stdev=1.062509 min=80.85 max=92.805982  # Perf_Sign:RSA_1024_0x0016.csv of 4 runs, 1300 samples
Sign               password   rsa-2048.rsassa n=1300 mean=163.874594 p50=163.973 p90=165.976168 p95=166.171563 p99=167.962886 stdev=1.79553 min=157.111 max=173.96522  # Perf_Sign:RSA_2048_0x0014.csv of 4 runs, 1300 samples
Sign               password   rsa-2048.rsapss n=1300 mean=178.587111 p50=178.947919 p90=180.75256 p95=181.021048 p99=182.964292 stdev=1.782941 min=171.997 max=188.747586  # Perf_Sign:RSA_2048_0x0016.csv of 4 runs, 1300 samples
VerifySignature    none       ecc-p256.ecdsa n=1300 mean=105.472173 p50=105.701354 p90=106.582583 p95=106.973 p99=107.178164 stdev=0.988532 min=98.926332 max=114.09099  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 4 runs, 1300 samples
VerifySignature    none       rsa-1024.rsassa n=1300 mean=7.86697 p50=7.981658 p90=8.956143 p95=8.987272 p99=9.030738 stdev=0.668714 min=5.962 max=10.921  # Perf_VerifySignature:RSA_1024_0x0014.csv of 4 runs, 1300 samples
VerifySignature    none       rsa-1024.rsapss n=1300 mean=15.015591 p50=14.980732 p90=15.986 p95=16.027283 p99=16.976 stdev=0.686418 min=13.5 max=17.989  # Perf_VerifySignature:RSA_1024_0x0016.csv of 4 runs, 1300 samples
VerifySignature    none       rsa-2048.rsassa n=1300 mean=10.760319 p50=10.964566 p90=11.983016 p95=11.995 p99=12.988 stdev=0.767423 min=8.928128 max=14.961  # Perf_VerifySignature:RSA_2048_0x0014.csv of 4 runs, 1300 samples
VerifySignature    none       rsa-2048.rsapss n=1300 mean=24.273372 p50=24.054656 p90=25.038865 p95=25.230419 p99=25.94555 stdev=0.789244 min=22.849 max=35.685026  # Perf_VerifySignature:RSA_2048_0x0016.csv of 4 runs, 1300 samples
CreatePrimary      password   ecc-p256       derived=Create n=1300 mean=108.317483 p50=108.296087 p90=109.106764 p95=109.684 p99=109.835 stdev=0.701636 min=105.989 max=110.095  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=1000 mean=107.809109 p50=107.733351 p90=108.154093 p95=108.437963 p99=108.987025 stdev=0.36317 min=106.683091 max=110.622476  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=1300 mean=54.851098 p50=54.694655 p90=55.672 p95=55.812 p99=56.146 stdev=0.601235 min=52.911 max=65.356135  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=1300 mean=2935.341337 p50=2675.100065 p90=4517.511741 p95=5263.060983 p99=6935.062117 stdev=1231.51767 min=1204.235 max=10161.205  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=1300 mean=11596.422353 p50=10343.027 p90=20054.608958 p95=23135.890598 p99=32291.109053 stdev=6344.331755 min=78.697 max=50473.849457  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=1300 mean=52.646686 p50=52.616353 p90=53.153644 p95=53.609842 p99=54.017481 stdev=0.555959 min=50.888 max=60.594668  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=2300 mean=4.797287 p50=4.973804 p90=5.227543 p95=5.696316 p99=6.016801 stdev=0.509637 min=3.364152 max=7.842  # derived: the figures of Hash sha256.256b (one digest)
