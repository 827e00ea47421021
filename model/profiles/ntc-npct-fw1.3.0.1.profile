tpmtrace-profile 1
name: ntc-npct-fw1.3.0.1
vendor: NTC
chip: rlsNPCT
firmware: 1.3.0.1
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/14 20:15:57
source: crocs-muni/tpmscan-dataset, 0279fea9e741849a 10cfdcddb3719b76 11da70fe2fed4348 1efc6fda96369bb2 718a1fbb72c0ed9a a853fb3310517278 e6ddadf26fd94194
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: PowerEdge R630; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 7 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=7000 mean=70.361979 p50=70.169243 p90=71.604157 p95=72.583903 p99=72.621388 stdev=0.943237 min=67.58754 max=74.609388  # Perf_Create:ECC_0x0003.csv of 7 runs, 7000 samples
Create             password   ecc-bnp256     n=7000 mean=120.911331 p50=120.607916 p90=123.601172 p95=123.635191 p99=124.610469 stdev=1.600403 min=116.592045 max=126.603401  # Perf_Create:ECC_0x0010.csv of 7 runs, 7000 samples
Create             password   hmac           n=7000 mean=16.683426 p50=16.598227 p90=17.070728 p95=17.164732 p99=17.302729 stdev=0.355532 min=15.604413 max=19.991601  # Perf_Create:HMAC.csv of 7 runs, 7000 samples
Create             password   rsa-1024       n=7000 mean=3150.173499 p50=2760.765759 p90=5460.412671 p95=6482.778332 p99=8477.725043 stdev=1690.595291 min=719.257738 max=18523.724667  # Perf_Create:RSA_1024.csv of 7 runs, 7000 samples
Create             password   rsa-2048       n=7000 mean=22379.196259 p50=19221.499448 p90=41704.773178 p95=49918.553125 p99=67252.452996 stdev=14211.593701 min=2021.45413 max=109446.570744  # Perf_Create:RSA_2048.csv of 7 runs, 7000 samples
GetRandom          none       32b            n=7000 mean=3.851125 p50=3.772708 p90=4.152197 p95=4.458466 p99=4.807184 stdev=0.308371 min=3.276608 max=7.13185  # Perf_GetRandom.csv of 7 runs, 7000 samples
HMAC               password   sha256.256b    n=7000 mean=4.994962 p50=4.996362 p90=5.015346 p95=5.023278 p99=5.042556 stdev=0.02778 min=4.331254 max=5.837311  # Perf_HMAC.csv of 7 runs, 7000 samples
Hash               none       sha1.256b      n=7000 mean=3.976159 p50=3.995745 p90=4.10272 p95=4.129575 p99=4.160797 stdev=0.117852 min=3.267534 max=4.728017  # Perf_Hash:0x0004.csv of 7 runs, 7000 samples
Hash               none       sha256.256b    n=7000 mean=3.981427 p50=3.994899 p90=4.097643 p95=4.130683 p99=4.169911 stdev=0.108935 min=3.276722 max=4.768788  # Perf_Hash:0x000b.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-1024.null  n=7000 mean=89.841653 p50=89.021748 p90=91.978273 p95=91.996217 p99=92.029693 stdev=1.105369 min=87.961846 max=94.014892  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=7000 mean=89.388456 p50=88.997247 p90=90.984574 p95=90.996947 p99=91.028546 stdev=0.797375 min=87.951837 max=91.996985  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=7000 mean=91.921144 p50=91.994258 p90=93.021796 p95=93.988406 p99=94.024338 stdev=0.961417 min=89.996824 max=96.028457  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-2048.null  n=7000 mean=560.462647 p50=558.99271 p90=572.996501 p95=573.983535 p99=574.012743 stdev=6.846333 min=547.966237 max=574.99666  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=7000 mean=558.85917 p50=555.997825 p90=570.999379 p95=571.98945 p99=572.027015 stdev=6.156172 min=548.99236 max=574.993799  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=7000 mean=563.740414 p50=561.960824 p90=575.988939 p95=576.031295 p99=577.002637 stdev=6.144757 min=553.969317 max=579.02254  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-1024.null  n=7000 mean=6.994971 p50=6.995982 p90=7.017846 p95=7.026033 p99=7.038253 stdev=0.02343 min=6.632193 max=7.900709  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=7000 mean=8.326938 p50=7.999961 p90=8.997476 p95=9.000785 p99=9.026247 stdev=0.472638 min=7.644474 max=11.026067  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=7000 mean=10.695622 p50=10.991542 p90=11.005689 p95=11.023664 p99=11.031276 stdev=0.462974 min=9.942038 max=13.983441  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-2048.null  n=7000 mean=12.008254 p50=11.996439 p90=12.023049 p95=12.029399 p99=12.982285 stdev=0.110864 min=11.758131 max=13.070719  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=7000 mean=15.082327 p50=14.996794 p90=15.035839 p95=15.996129 p99=16.009089 stdev=0.287178 min=14.668147 max=17.991674  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=7000 mean=17.887771 p50=17.995761 p90=18.015131 p95=18.02678 p99=18.037639 stdev=0.318268 min=16.943427 max=20.047369  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 7 runs, 7000 samples
Sign               password   ecc-p256.ecdsa n=7000 mean=196.436714 p50=196.023577 p90=206.996946 p95=209.995084 p99=215.030344 stdev=8.242503 min=167.996186 max=223.996904  # Perf_Sign:ECC_0x0003_0x0018.csv of 7 runs, 7000 samples
Sign               password   ecc-p256.ecdaa n=7000 mean=5.962081 p50=5.968528 p90=5.976485 p95=5.98449 p99=6.00269 stdev=0.021378 min=5.776446 max=6.791106  # Perf_Sign:ECC_0x0003_0x001a.csv of 7 runs, 7000 samples
Sign               password   ecc-p256.ecschnorr n=7000 mean=61.847225 p50=61.994524 p90=62.994705 p95=62.999702 p99=63.031396 stdev=0.758924 min=58.989694 max=65.959328  # Perf_Sign:ECC_0x0003_0x001c.csv of 7 runs, 7000 samples
Sign               password   ecc-bnp256.ecdsa n=7000 mean=194.494869 p50=194.025016 p90=205.016172 p95=208.968303 p99=214.985076 stdev=8.415623 min=163.981802 max=229.956916  # Perf_Sign:ECC_0x0010_0x0018.csv of 7 runs, 7000 samples
Sign               password   ecc-bnp256.ecdaa n=7000 mean=5.961562 p50=5.968103 p90=5.976514 p95=5.984485 p99=6.004239 stdev=0.023568 min=5.655888 max=6.806795  # Perf_Sign:ECC_0x0010_0x001a.csv of 7 runs, 7000 samples
Sign               password   ecc-bnp256.ecschnorr n=7000 mean=59.949265 p50=59.995799 p90=60.995684 p95=61.001194 p99=61.03385 stdev=0.751965 min=57.952536 max=75.989945  # Perf_Sign:ECC_0x0010_0x001c.csv of 7 runs, 7000 samples
Sign               password   rsa-1024.rsassa n=7000 mean=89.444473 p50=88.997654 p90=90.997195 p95=91.002469 p99=91.03316 stdev=0.968943 min=87.953196 max=94.021988  # Perf_Sign:RSA_1024_0x0014.csv of 7 runs, 7000 samples
Sign               password   rsa-1024.rsapss n=7000 mean=92.212329 p50=91.996758 p90=93.968058 p95=93.994209 p99=94.028518 stdev=0.867566 min=90.941178 max=96.029542  # Perf_Sign:RSA_1024_0x0016.csv of 7 runs, 7000 samples
Sign               password   rsa-2048.rsassa n=7000 mean=558.720733 p50=555.025958 p90=570.974313 p95=570.998069 p99=571.031134 stdev=6.100258 min=549.962855 max=572.341705  # Perf_Sign:RSA_2048_0x0014.csv of 7 runs, 7000 samples
Sign               password   rsa-2048.rsapss n=7000 mean=562.584557 p50=559.998428 p90=574.984578 p95=575.001092 p99=575.99081 stdev=5.882118 min=551.991929 max=577.99765  # Perf_Sign:RSA_2048_0x0016.csv of 7 runs, 7000 samples
VerifySignature    none       ecc-p256.ecschnorr n=7000 mean=121.814403 p50=121.963837 p90=124.984879 p95=124.994607 p99=125.024862 stdev=1.632686 min=118.943307 max=135.999148  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 7 runs, 7000 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=7000 mean=118.317842 p50=117.99722 p90=120.985959 p95=120.995198 p99=121.026105 stdev=1.499137 min=115.915748 max=123.991988  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-1024.rsassa n=7000 mean=6.908447 p50=6.979454 p90=7.054954 p95=7.08575 p99=7.152235 stdev=0.227827 min=5.887639 max=7.31923  # Perf_VerifySignature:RSA_1024_0x0014.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-1024.rsapss n=7000 mean=7.978131 p50=7.993873 p90=8.036853 p95=8.098675 p99=8.175973 stdev=0.114414 min=7.228564 max=9.039801  # Perf_VerifySignature:RSA_1024_0x0016.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-2048.rsassa n=7000 mean=11.656464 p50=11.990129 p90=12.001007 p95=12.017667 p99=12.028359 stdev=0.472535 min=10.946471 max=12.335008  # Perf_VerifySignature:RSA_2048_0x0014.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-2048.rsapss n=7000 mean=14.260731 p50=13.997503 p90=14.996817 p95=14.998269 p99=15.019167 stdev=0.441712 min=13.926519 max=15.881922  # Perf_VerifySignature:RSA_2048_0x0016.csv of 7 runs, 7000 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=7000 mean=114.857271 p50=114.145831 p90=117.107068 p95=118.086233 p99=118.120429 stdev=1.4689 min=111.076825 max=120.069009  # Perf_ZGen:0x0003_0x0019.csv of 7 runs, 7000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=7000 mean=110.814737 p50=110.145769 p90=113.095474 p95=113.109288 p99=113.141741 stdev=1.285984 min=108.064256 max=121.111654  # Perf_ZGen:0x0010_0x0019.csv of 7 runs, 7000 samples
CreatePrimary      password   ecc-p256       derived=Create n=7000 mean=70.361979 p50=70.169243 p90=71.604157 p95=72.583903 p99=72.621388 stdev=0.943237 min=67.58754 max=74.609388  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=7000 mean=120.911331 p50=120.607916 p90=123.601172 p95=123.635191 p99=124.610469 stdev=1.600403 min=116.592045 max=126.603401  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=7000 mean=16.683426 p50=16.598227 p90=17.070728 p95=17.164732 p99=17.302729 stdev=0.355532 min=15.604413 max=19.991601  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=7000 mean=3150.173499 p50=2760.765759 p90=5460.412671 p95=6482.778332 p99=8477.725043 stdev=1690.595291 min=719.257738 max=18523.724667  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=7000 mean=22379.196259 p50=19221.499448 p90=41704.773178 p95=49918.553125 p99=67252.452996 stdev=14211.593701 min=2021.45413 max=109446.570744  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=7000 mean=3.981427 p50=3.994899 p90=4.097643 p95=4.130683 p99=4.169911 stdev=0.108935 min=3.276722 max=4.768788  # derived: the figures of Hash sha256.256b (one digest)
