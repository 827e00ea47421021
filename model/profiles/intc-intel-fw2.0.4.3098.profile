tpmtrace-profile 1
name: intc-intel-fw2.0.4.3098
vendor: INTC
chip: Intel
firmware: 2.0.4.3098
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020/09/25 21:42:55
source: crocs-muni/tpmscan-dataset, 1616e7e932050889 f5060c3a9b2e2511
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: 2 runs of this chip and firmware merged: their samples pooled, min and max over all
note: not imported (failed on the chip or unusable): Sign ecc-p256.sm2 (line 247, error 02d2); Sign ecc-p256.ecschnorr (line 258, error 02d2); Sign ecc-p256.sm2 (line 247, error 02d2); Sign ecc-p256.ecschnorr (line 258, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=200 mean=239.881545 p50=241.142 p90=247.696 p95=249.247 p99=251.439 stdev=7.230932 min=214.284 max=255.332  # Perf_Create:ECC_0x0003.csv of 2 runs, 200 samples
Create             password   hmac           n=200 mean=49.65619 p50=53.347 p90=58.748 p95=65.598 p99=80.284 stdev=15.465858 min=9.198 max=82.815  # Perf_Create:HMAC.csv of 2 runs, 200 samples
Create             password   rsa-1024       n=200 mean=3469.02409 p50=2986.275 p90=6145.185 p95=7543.86 p99=10562.535 stdev=1985.627446 min=945.286 max=11478.676  # Perf_Create:RSA_1024.csv of 2 runs, 200 samples
Create             password   rsa-2048       n=200 mean=14306.34923 p50=12079.001 p90=26861.865 p95=31986.599 p99=46299.817 stdev=10318.714506 min=57.861 max=61841.734  # Perf_Create:RSA_2048.csv of 2 runs, 200 samples
GetRandom          none       32b            n=200 mean=8.26838 p50=5.42 p90=14.126 p95=15.488 p99=32.452 stdev=5.105768 min=3.479 max=36.596  # Perf_GetRandom.csv of 2 runs, 200 samples
HMAC               password   sha256.256b    n=200 mean=10.059545 p50=5.615 p90=17.405 p95=18.952 p99=35.118 stdev=6.820519 min=3.84 max=39.759  # Perf_HMAC.csv of 2 runs, 200 samples
Hash               none       sha1.256b      n=200 mean=8.957475 p50=5.906 p90=14.626 p95=15.456 p99=31.922 stdev=5.212229 min=3.772 max=34.792  # Perf_Hash:0x0004.csv of 2 runs, 200 samples
Hash               none       sha256.256b    n=200 mean=8.99611 p50=5.609 p90=14.508 p95=15.567 p99=37.241 stdev=5.828111 min=3.563 max=37.827  # Perf_Hash:0x000b.csv of 2 runs, 200 samples
RSA_Decrypt        password   rsa-1024.null  n=200 mean=144.08741 p50=138.105 p90=172.824 p95=183.296 p99=199.525 stdev=21.846272 min=71.541 max=221.054  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 2 runs, 200 samples
RSA_Decrypt        password   rsa-1024.rsaes n=200 mean=129.328325 p50=131.513 p90=154 p95=159.564 p99=176.268 stdev=20.491357 min=77.918 max=181.98  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 2 runs, 200 samples
RSA_Decrypt        password   rsa-1024.oaep  n=200 mean=137.33743 p50=141.038 p90=163.406 p95=170.842 p99=188.363 stdev=23.569985 min=85.907 max=198.207  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 2 runs, 200 samples
RSA_Decrypt        password   rsa-2048.null  n=200 mean=484.03632 p50=481.022 p90=529.895 p95=542.308 p99=565.053 stdev=33.865613 min=403.577 max=580.332  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 2 runs, 200 samples
RSA_Decrypt        password   rsa-2048.rsaes n=200 mean=475.00376 p50=473.37 p90=530.024 p95=549.022 p99=568.842 stdev=45.495366 min=367.011 max=573.247  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 2 runs, 200 samples
RSA_Decrypt        password   rsa-2048.oaep  n=200 mean=492.642765 p50=496.621 p90=548.621 p95=560.893 p99=591.328 stdev=47.41506 min=269.257 max=597.623  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 2 runs, 200 samples
RSA_Encrypt        none       rsa-1024.null  n=200 mean=21.799605 p50=19.839 p90=36.55 p95=40.838 p99=50.092 stdev=8.790131 min=7.247 max=57.893  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 2 runs, 200 samples
RSA_Encrypt        none       rsa-1024.rsaes n=200 mean=24.003785 p50=22.124 p90=38.128 p95=45.056 p99=56.635 stdev=9.896574 min=8.958 max=72.27  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 2 runs, 200 samples
RSA_Encrypt        none       rsa-1024.oaep  n=200 mean=30.236595 p50=29.765 p90=43.585 p95=47.959 p99=55.017 stdev=10.087683 min=10.495 max=66.166  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 2 runs, 200 samples
RSA_Encrypt        none       rsa-2048.null  n=200 mean=26.649875 p50=24.373 p90=42.17 p95=49.325 p99=60.459 stdev=10.578982 min=9.51 max=66.339  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 2 runs, 200 samples
RSA_Encrypt        none       rsa-2048.rsaes n=200 mean=29.02928 p50=27.207 p90=44.891 p95=47.864 p99=53.392 stdev=9.24849 min=12.347 max=61.98  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 2 runs, 200 samples
RSA_Encrypt        none       rsa-2048.oaep  n=200 mean=41.73441 p50=42.378 p90=58.741 p95=60.577 p99=64.829 stdev=12.536723 min=13.045 max=67.438  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 2 runs, 200 samples
Sign               password   ecc-p256.ecdsa n=200 mean=160.416295 p50=107.925 p90=223.019 p95=229.571 p99=238.66 stdev=56.960064 min=101.517 max=254.367  # Perf_Sign:ECC_0x0003_0x0018.csv of 2 runs, 200 samples
Sign               password   rsa-1024.rsassa n=200 mean=126.945645 p50=128.958 p90=155.56 p95=169.316 p99=177.171 stdev=24.787311 min=67.003 max=184.527  # Perf_Sign:RSA_1024_0x0014.csv of 2 runs, 200 samples
Sign               password   rsa-1024.rsapss n=200 mean=101.55339 p50=72.022 p90=151.394 p95=157.614 p99=177.477 stdev=35.638228 min=67.997 max=198.917  # Perf_Sign:RSA_1024_0x0016.csv of 2 runs, 200 samples
Sign               password   rsa-2048.rsassa n=200 mean=487.059495 p50=486.688 p90=539.645 p95=559.086 p99=569.127 stdev=40.126472 min=376.168 max=582.236  # Perf_Sign:RSA_2048_0x0014.csv of 2 runs, 200 samples
Sign               password   rsa-2048.rsapss n=200 mean=474.856985 p50=487.39 p90=541.669 p95=566.257 p99=591.525 stdev=77.101931 min=242.193 max=614.183  # Perf_Sign:RSA_2048_0x0016.csv of 2 runs, 200 samples
VerifySignature    none       ecc-p256.ecdsa n=200 mean=88.907195 p50=87.158 p90=104.209 p95=109.698 p99=114.938 stdev=10.693446 min=64.791 max=126.091  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 2 runs, 200 samples
VerifySignature    none       rsa-1024.rsassa n=200 mean=9.7383 p50=9.686 p90=10.598 p95=10.809 p99=11.369 stdev=0.737853 min=8.165 max=12.908  # Perf_VerifySignature:RSA_1024_0x0014.csv of 2 runs, 200 samples
VerifySignature    none       rsa-1024.rsapss n=200 mean=10.4795 p50=10.534 p90=11.357 p95=11.589 p99=11.972 stdev=0.694635 min=8.992 max=12.53  # Perf_VerifySignature:RSA_1024_0x0016.csv of 2 runs, 200 samples
VerifySignature    none       rsa-2048.rsassa n=200 mean=26.975385 p50=25.48 p90=37.858 p95=45.866 p99=65.146 stdev=9.192919 min=11.751 max=79.023  # Perf_VerifySignature:RSA_2048_0x0014.csv of 2 runs, 200 samples
VerifySignature    none       rsa-2048.rsapss n=200 mean=36.34121 p50=35.987 p90=49.915 p95=54.758 p99=60.896 stdev=10.221003 min=12.417 max=64.618  # Perf_VerifySignature:RSA_2048_0x0016.csv of 2 runs, 200 samples
CreatePrimary      password   ecc-p256       derived=Create n=200 mean=239.881545 p50=241.142 p90=247.696 p95=249.247 p99=251.439 stdev=7.230932 min=214.284 max=255.332  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=200 mean=49.65619 p50=53.347 p90=58.748 p95=65.598 p99=80.284 stdev=15.465858 min=9.198 max=82.815  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=200 mean=3469.02409 p50=2986.275 p90=6145.185 p95=7543.86 p99=10562.535 stdev=1985.627446 min=945.286 max=11478.676  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=200 mean=14306.34923 p50=12079.001 p90=26861.865 p95=31986.599 p99=46299.817 stdev=10318.714506 min=57.861 max=61841.734  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=200 mean=8.99611 p50=5.609 p90=14.508 p95=15.567 p99=37.241 stdev=5.828111 min=3.563 max=37.827  # derived: the figures of Hash sha256.256b (one digest)
