tpmtrace-profile 1
name: ifx-slb9665-fw5.63.13.6400
vendor: IFX
chip: SLB9665
firmware: 5.63.13.6400
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/04/22 18:58:02
source: crocs-muni/tpmscan-dataset, 11fddeadc155fc7d a4a350008a9e7fd6 e9bd9337ba8cf4ef
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: CS OFFICE; Linux algtest-live 6.1.9-200.fc37.x86_64 #1 SMP PREEMPT_DYNAMIC Thu Feb  2 00:21:48 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 3 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=3000 mean=109.878621 p50=110.163714 p90=110.271233 p95=110.455713 p99=111.213144 stdev=0.551136 min=108.162976 max=113.727445  # Perf_Create:ECC_0x0003.csv of 3 runs, 3000 samples
Create             password   ecc-bnp256     n=3000 mean=109.89008 p50=110.179013 p90=110.27619 p95=110.284959 p99=111.201514 stdev=0.509615 min=108.17512 max=113.167194  # Perf_Create:ECC_0x0010.csv of 3 runs, 3000 samples
Create             password   hmac           n=3000 mean=55.561538 p50=55.249353 p90=56.173422 p95=56.185336 p99=56.508473 stdev=0.498344 min=54.446204 max=59.149688  # Perf_Create:HMAC.csv of 3 runs, 3000 samples
Create             password   rsa-1024       n=3000 mean=2990.337489 p50=2701.686116 p90=4722.42463 p95=5539.688627 p99=7140.528315 stdev=1291.159039 min=1208.683707 max=10549.430511  # Perf_Create:RSA_1024.csv of 3 runs, 3000 samples
Create             password   rsa-2048       n=3000 mean=11909.963004 p50=10378.941888 p90=20633.700716 p95=24129.965683 p99=32428.702076 stdev=6433.988282 min=2926.043796 max=54254.168274  # Perf_Create:RSA_2048.csv of 3 runs, 3000 samples
Create             password   aes-128        n=3000 mean=54.165901 p50=54.111757 p90=55.086106 p95=55.094876 p99=55.105909 stdev=0.65772 min=52.675457 max=57.202467  # Perf_Create:SYMCIPHER_0x0006_128.csv of 3 runs, 3000 samples
GetRandom          none       32b            n=3000 mean=4.503859 p50=4.539144 p90=4.882914 p95=4.889798 p99=5.014876 stdev=0.341841 min=3.908198 max=6.086893  # Perf_GetRandom.csv of 3 runs, 3000 samples
HMAC               password   sha256.256b    n=3000 mean=29.995744 p50=29.99527 p90=30.014185 p95=30.066589 p99=30.157875 stdev=0.183621 min=28.933543 max=33.108025  # Perf_HMAC.csv of 3 runs, 3000 samples
Hash               none       sha1.256b      n=3000 mean=20.79276 p50=20.940021 p90=21.038722 p95=21.11981 p99=21.721392 stdev=0.401083 min=19.882343 max=24.029742  # Perf_Hash:0x0004.csv of 3 runs, 3000 samples
Hash               none       sha256.256b    n=3000 mean=20.927298 p50=20.987414 p90=21.236036 p95=21.664306 p99=21.935905 stdev=0.413329 min=19.975368 max=29.942841  # Perf_Hash:0x000b.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-1024.null  n=3000 mean=83.884051 p50=83.981521 p90=84.991355 p95=85.098831 p99=86.896113 stdev=0.89106 min=81.839252 max=94.003504  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=3000 mean=84.19338 p50=83.993178 p90=85.077562 p95=85.941869 p99=86.888421 stdev=0.848736 min=81.79553 max=92.983781  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=3000 mean=87.785393 p50=87.963204 p90=88.991994 p95=89.090327 p99=90.164546 stdev=0.911133 min=85.767704 max=95.965117  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-2048.null  n=3000 mean=179.238369 p50=178.999967 p90=180.987199 p95=181.100163 p99=182.109225 stdev=1.326246 min=174.988659 max=190.992043  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=3000 mean=179.125337 p50=178.991439 p90=180.980708 p95=181.090485 p99=182.895474 stdev=1.334562 min=175.878787 max=189.99486  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=3000 mean=185.693769 p50=185.904298 p90=187.097071 p95=187.988704 p99=188.996215 stdev=1.340465 min=180.974512 max=193.153576  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-1024.null  n=3000 mean=11.214298 p50=11.105669 p90=11.847347 p95=11.989325 p99=12.160642 stdev=0.390454 min=10.513586 max=13.245499  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=3000 mean=13.196755 p50=13.028999 p90=13.957147 p95=13.979569 p99=14.0175 stdev=0.436052 min=11.936279 max=22.030121  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=3000 mean=15.387936 p50=15.091783 p90=15.99349 p95=16.002308 p99=16.101962 stdev=0.49681 min=14.621907 max=17.09747  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-2048.null  n=3000 mean=15.06701 p50=14.994939 p90=15.738051 p95=15.985629 p99=16.007331 stdev=0.413632 min=13.866752 max=21.995119  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=3000 mean=20.256108 p50=20.002545 p90=20.994092 p95=21.002064 p99=21.109701 stdev=0.483404 min=18.765233 max=22.964847  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=3000 mean=21.514653 p50=21.885873 p90=22.087304 p95=22.106654 p99=22.124169 stdev=0.540222 min=20.101363 max=27.981512  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 3 runs, 3000 samples
Sign               password   ecc-p256.ecdsa n=3000 mean=73.078358 p50=72.990795 p90=73.147086 p95=73.990306 p99=74.103835 stdev=0.369597 min=71.898863 max=81.933069  # Perf_Sign:ECC_0x0003_0x0018.csv of 3 runs, 3000 samples
Sign               password   ecc-p256.ecdaa n=3000 mean=43.541666 p50=43.867889 p90=44.059727 p95=44.071428 p99=44.212041 stdev=0.566636 min=41.983703 max=51.958427  # Perf_Sign:ECC_0x0003_0x001a.csv of 3 runs, 3000 samples
Sign               password   ecc-bnp256.ecdaa n=3000 mean=43.736755 p50=43.937066 p90=44.062815 p95=44.073479 p99=44.180676 stdev=0.48749 min=42.715504 max=52.939583  # Perf_Sign:ECC_0x0010_0x001a.csv of 3 runs, 3000 samples
Sign               password   rsa-1024.rsassa n=3000 mean=78.564495 p50=78.120251 p90=79.927347 p95=79.997255 p99=80.994125 stdev=0.894535 min=76.092526 max=89.998577  # Perf_Sign:RSA_1024_0x0014.csv of 3 runs, 3000 samples
Sign               password   rsa-1024.rsapss n=3000 mean=86.490589 p50=86.098486 p90=87.421198 p95=87.995382 p99=88.996264 stdev=0.88707 min=83.882822 max=94.969881  # Perf_Sign:RSA_1024_0x0016.csv of 3 runs, 3000 samples
Sign               password   rsa-2048.rsassa n=3000 mean=166.273945 p50=166.003395 p90=167.987327 p95=168.089336 p99=169.09766 stdev=1.303845 min=161.996379 max=175.962842  # Perf_Sign:RSA_2048_0x0014.csv of 3 runs, 3000 samples
Sign               password   rsa-2048.rsapss n=3000 mean=179.149479 p50=178.994607 p90=180.980181 p95=181.091326 p99=182.147919 stdev=1.291225 min=174.994778 max=187.997254  # Perf_Sign:RSA_2048_0x0016.csv of 3 runs, 3000 samples
VerifySignature    none       ecc-p256.ecdsa n=3000 mean=112.015518 p50=111.990512 p90=112.987723 p95=113.021577 p99=113.101569 stdev=0.657253 min=105.094433 max=120.995594  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-1024.rsassa n=3000 mean=17.757992 p50=17.950329 p90=19.013705 p95=19.097996 p99=19.116541 stdev=0.838114 min=16.368772 max=25.996878  # Perf_VerifySignature:RSA_1024_0x0014.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-1024.rsapss n=3000 mean=24.945501 p50=24.986917 p90=25.094188 p95=25.103883 p99=25.141621 stdev=0.241214 min=22.98748 max=27.121977  # Perf_VerifySignature:RSA_1024_0x0016.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-2048.rsassa n=3000 mean=29.379446 p50=29.005095 p90=30.981149 p95=30.990707 p99=31.010556 stdev=0.896347 min=27.868246 max=32.992506  # Perf_VerifySignature:RSA_2048_0x0014.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-2048.rsapss n=3000 mean=41.861677 p50=41.78666 p90=43.08192 p95=43.099544 p99=44.086982 stdev=0.978953 min=40.006006 max=49.982478  # Perf_VerifySignature:RSA_2048_0x0016.csv of 3 runs, 3000 samples
CreatePrimary      password   ecc-p256       derived=Create n=3000 mean=109.878621 p50=110.163714 p90=110.271233 p95=110.455713 p99=111.213144 stdev=0.551136 min=108.162976 max=113.727445  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=3000 mean=109.89008 p50=110.179013 p90=110.27619 p95=110.284959 p99=111.201514 stdev=0.509615 min=108.17512 max=113.167194  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=3000 mean=55.561538 p50=55.249353 p90=56.173422 p95=56.185336 p99=56.508473 stdev=0.498344 min=54.446204 max=59.149688  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=3000 mean=2990.337489 p50=2701.686116 p90=4722.42463 p95=5539.688627 p99=7140.528315 stdev=1291.159039 min=1208.683707 max=10549.430511  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=3000 mean=11909.963004 p50=10378.941888 p90=20633.700716 p95=24129.965683 p99=32428.702076 stdev=6433.988282 min=2926.043796 max=54254.168274  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=3000 mean=54.165901 p50=54.111757 p90=55.086106 p95=55.094876 p99=55.105909 stdev=0.65772 min=52.675457 max=57.202467  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=3000 mean=20.927298 p50=20.987414 p90=21.236036 p95=21.664306 p99=21.935905 stdev=0.413329 min=19.975368 max=29.942841  # derived: the figures of Hash sha256.256b (one digest)
