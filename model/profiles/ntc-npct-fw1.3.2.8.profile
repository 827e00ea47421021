tpmtrace-profile 1
name: ntc-npct-fw1.3.2.8
vendor: NTC
chip: rlsNPCT
firmware: 1.3.2.8
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/14 15:35:56
source: crocs-muni/tpmscan-dataset, b4b57ab589a6fc0e e846d8589f60a671
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: ThinkSystem SR850 -[7X19CTO1WW]-; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 2 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=2000 mean=76.202892 p50=75.950114 p90=76.89731 p95=76.91559 p99=76.944904 stdev=0.456764 min=74.33466 max=80.894663  # Perf_Create:ECC_0x0003.csv of 2 runs, 2000 samples
Create             password   ecc-bnp256     n=2000 mean=126.726187 p50=126.906225 p90=127.138596 p95=127.183412 p99=127.39232 stdev=0.48996 min=123.15266 max=131.935503  # Perf_Create:ECC_0x0010.csv of 2 runs, 2000 samples
Create             password   hmac           n=2000 mean=22.950796 p50=22.933246 p90=23.171287 p95=23.236043 p99=23.847797 stdev=0.19315 min=22.33387 max=27.901765  # Perf_Create:HMAC.csv of 2 runs, 2000 samples
Create             password   rsa-1024       n=2000 mean=3196.276924 p50=2814.587097 p90=5486.576684 p95=6598.55573 p99=8952.664884 stdev=1759.262162 min=737.560717 max=15906.600409  # Perf_Create:RSA_1024.csv of 2 runs, 2000 samples
Create             password   rsa-2048       n=2000 mean=22214.546652 p50=18730.345771 p90=42220.389987 p95=50474.423723 p99=69415.377219 stdev=14564.969964 min=2309.350361 max=123279.345559  # Perf_Create:RSA_2048.csv of 2 runs, 2000 samples
GetRandom          none       32b            n=2000 mean=4.998554 p50=4.996748 p90=4.999195 p95=5.00003 p99=5.002281 stdev=0.09056 min=4.873493 max=9.036538  # Perf_GetRandom.csv of 2 runs, 2000 samples
HMAC               password   sha256.256b    n=2000 mean=6.088883 p50=5.996154 p90=6.028831 p95=7.003989 p99=7.009135 stdev=0.296821 min=5.852615 max=7.096796  # Perf_HMAC.csv of 2 runs, 2000 samples
Hash               none       sha1.256b      n=2000 mean=4.769277 p50=4.756072 p90=4.87424 p95=4.987845 p99=5.760166 stdev=0.150553 min=4.478161 max=6.005258  # Perf_Hash:0x0004.csv of 2 runs, 2000 samples
Hash               none       sha256.256b    n=2000 mean=5.02165 p50=4.9965 p90=5.000281 p95=5.002857 p99=6.005888 stdev=0.160593 min=4.669382 max=6.010602  # Perf_Hash:0x000b.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.null  n=2000 mean=89.207338 p50=88.990383 p90=89.985391 p95=89.99402 p99=90.021395 stdev=0.438054 min=88.873465 max=94.021944  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=2000 mean=88.049474 p50=87.986686 p90=88.026567 p95=88.968457 p99=89.003561 stdev=0.244072 min=87.880056 max=89.030405  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=2000 mean=92.536606 p50=92.950804 p90=93.002796 p95=93.021878 p99=93.03492 stdev=0.50875 min=91.877916 max=97.002063  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.null  n=2000 mean=548.894269 p50=548.984462 p90=549.021706 p95=549.038026 p99=549.999151 stdev=0.448493 min=544.981228 max=552.02166  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=2000 mean=546.15643 p50=545.989802 p90=546.989161 p95=547.001948 p99=547.031849 stdev=0.586167 min=543.94452 max=550.992057  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=2000 mean=552.853337 p50=552.984298 p90=553.02338 p95=553.892333 p99=553.993722 stdev=0.497808 min=550.950453 max=556.982411  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.null  n=2000 mean=7.493698 p50=7.483419 p90=7.57291 p95=7.575104 p99=7.578721 stdev=0.07999 min=7.134899 max=8.154247  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=2000 mean=9.520406 p50=9.574451 p90=9.675839 p95=9.724406 p99=9.80435 stdev=0.149049 min=9.011239 max=13.597164  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=2000 mean=13.03158 p50=12.811754 p90=13.812772 p95=13.826516 p99=13.837643 stdev=0.519117 min=12.315488 max=17.687653  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.null  n=2000 mean=12.990508 p50=12.98679 p90=13.017154 p95=13.024732 p99=13.033928 stdev=0.060905 min=12.913254 max=14.000763  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=2000 mean=16.992994 p50=16.986805 p90=17.021171 p95=17.026092 p99=17.041079 stdev=0.126594 min=16.90142 max=21.957323  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=2000 mean=21.979361 p50=21.986343 p90=22.018656 p95=22.025447 p99=22.039267 stdev=0.090111 min=20.978098 max=22.475653  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecdsa n=2000 mean=193.996759 p50=193.97921 p90=203.991749 p95=206.976888 p99=211.992207 stdev=7.747653 min=169.948344 max=226.981088  # Perf_Sign:ECC_0x0003_0x0018.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecdaa n=2000 mean=7.098956 p50=6.948787 p90=7.200158 p95=7.919388 p99=7.942705 stdev=0.286669 min=6.843972 max=8.148874  # Perf_Sign:ECC_0x0003_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecschnorr n=2000 mean=62.789024 p50=62.981547 p90=63.013106 p95=63.02448 p99=63.037144 stdev=0.427528 min=60.975816 max=66.984648  # Perf_Sign:ECC_0x0003_0x001c.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecdsa n=2000 mean=191.6833 p50=191.981416 p90=200.994263 p95=203.987627 p99=209.941509 stdev=7.548344 min=161.996239 max=214.983308  # Perf_Sign:ECC_0x0010_0x0018.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecdaa n=2000 mean=7.077336 p50=6.929787 p90=7.87676 p95=7.919514 p99=7.94576 stdev=0.30074 min=6.865119 max=7.988707  # Perf_Sign:ECC_0x0010_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecschnorr n=2000 mean=60.902575 p50=60.984676 p90=61.018853 p95=61.027237 p99=61.037692 stdev=0.329961 min=58.987818 max=65.962508  # Perf_Sign:ECC_0x0010_0x001c.csv of 2 runs, 2000 samples
Sign               password   rsa-1024.rsassa n=2000 mean=88.623322 p50=88.974473 p90=89.004715 p95=89.020487 p99=89.031062 stdev=0.491817 min=87.932595 max=92.997188  # Perf_Sign:RSA_1024_0x0014.csv of 2 runs, 2000 samples
Sign               password   rsa-1024.rsapss n=2000 mean=92.509328 p50=92.946378 p90=93.003223 p95=93.019931 p99=93.028723 stdev=0.515592 min=91.904718 max=97.006502  # Perf_Sign:RSA_1024_0x0016.csv of 2 runs, 2000 samples
Sign               password   rsa-2048.rsassa n=2000 mean=546.773155 p50=546.959801 p90=547.990726 p95=548.004946 p99=548.027037 stdev=0.944355 min=543.978431 max=549.955857  # Perf_Sign:RSA_2048_0x0014.csv of 2 runs, 2000 samples
Sign               password   rsa-2048.rsapss n=2000 mean=552.093123 p50=551.97971 p90=553.98608 p95=553.997362 p99=554.025362 stdev=1.331841 min=547.991537 max=558.031372  # Perf_Sign:RSA_2048_0x0016.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-p256.ecschnorr n=2000 mean=123.011402 p50=122.986541 p90=123.019083 p95=123.028779 p99=123.983776 stdev=0.247213 min=122.723629 max=128.014843  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=2000 mean=119.329896 p50=118.995271 p90=119.991234 p95=120.00529 p99=120.029754 stdev=0.630481 min=118.886555 max=135.978769  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-1024.rsassa n=2000 mean=7.325388 p50=7.377519 p90=7.413084 p95=7.416921 p99=7.423763 stdev=0.093798 min=7.154162 max=7.558266  # Perf_VerifySignature:RSA_1024_0x0014.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-1024.rsapss n=2000 mean=9.354182 p50=9.38703 p90=9.400226 p95=9.404732 p99=10.386149 stdev=0.19415 min=9.146942 max=10.414796  # Perf_VerifySignature:RSA_1024_0x0016.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-2048.rsassa n=2000 mean=12.207766 p50=11.990526 p90=12.995313 p95=12.996996 p99=13.006147 stdev=0.414905 min=11.840476 max=13.032665  # Perf_VerifySignature:RSA_2048_0x0014.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-2048.rsapss n=2000 mean=16.99528 p50=16.996576 p90=17.1034 p95=17.106374 p99=17.112205 stdev=0.085627 min=16.826021 max=17.124425  # Perf_VerifySignature:RSA_2048_0x0016.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=2000 mean=115.44699 p50=115.346262 p90=116.282095 p95=116.338318 p99=116.434947 stdev=0.347173 min=114.293419 max=119.356602  # Perf_ZGen:0x0003_0x0019.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=2000 mean=111.521451 p50=111.373913 p90=112.332057 p95=112.424156 p99=112.452141 stdev=0.410572 min=109.459839 max=116.350717  # Perf_ZGen:0x0010_0x0019.csv of 2 runs, 2000 samples
CreatePrimary      password   ecc-p256       derived=Create n=2000 mean=76.202892 p50=75.950114 p90=76.89731 p95=76.91559 p99=76.944904 stdev=0.456764 min=74.33466 max=80.894663  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=2000 mean=126.726187 p50=126.906225 p90=127.138596 p95=127.183412 p99=127.39232 stdev=0.48996 min=123.15266 max=131.935503  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=2000 mean=22.950796 p50=22.933246 p90=23.171287 p95=23.236043 p99=23.847797 stdev=0.19315 min=22.33387 max=27.901765  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=2000 mean=3196.276924 p50=2814.587097 p90=5486.576684 p95=6598.55573 p99=8952.664884 stdev=1759.262162 min=737.560717 max=15906.600409  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=2000 mean=22214.546652 p50=18730.345771 p90=42220.389987 p95=50474.423723 p99=69415.377219 stdev=14564.969964 min=2309.350361 max=123279.345559  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=2000 mean=5.02165 p50=4.9965 p90=5.000281 p95=5.002857 p99=6.005888 stdev=0.160593 min=4.669382 max=6.010602  # derived: the figures of Hash sha256.256b (one digest)
