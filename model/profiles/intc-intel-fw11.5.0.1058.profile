tpmtrace-profile 1
name: intc-intel-fw11.5.0.1058
vendor: INTC
chip: Intel
firmware: 11.5.0.1058
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/04/27 16:01:24
source: crocs-muni/tpmscan-dataset, 2b2a095ab2480c11 7f40f2a2c7717eef ab21d25839a363ba ee447cacbb519bc5
covers: Create EncryptDecrypt GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: UX360UAK; Linux algtest-live 6.1.9-200.fc37.x86_64 #1 SMP PREEMPT_DYNAMIC Thu Feb  2 00:21:48 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 4 runs of this chip and firmware merged: their samples pooled, min and max over all
note: not imported (failed on the chip or unusable): Sign ecc-p256.sm2 (line 409, error 02d2); Sign ecc-bnp256.sm2 (line 442, error 02d2); Sign ecc-p256.sm2 (line 409, error 02d2); Sign ecc-bnp256.sm2 (line 442, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=2200 mean=56.153913 p50=55.201021 p90=59.244 p95=64.575038 p99=72.493304 stdev=3.498359 min=53.560182 max=74.202  # Perf_Create:ECC_0x0003.csv of 4 runs, 2200 samples
Create             password   ecc-bnp256     n=2200 mean=101.034351 p50=100.182442 p90=103.906449 p95=108.929186 p99=117.234994 stdev=3.763436 min=96.173821 max=180.376425  # Perf_Create:ECC_0x0010.csv of 4 runs, 2200 samples
Create             password   hmac           n=2200 mean=9.995973 p50=10.015092 p90=10.252796 p95=10.31 p99=10.781602 stdev=0.264185 min=9.319 max=12.191235  # Perf_Create:HMAC.csv of 4 runs, 2200 samples
Create             password   rsa-1024       n=2200 mean=1007.475827 p50=861.526521 p90=1814.895249 p95=2148.273624 p99=3053.765439 stdev=595.239696 min=191.440487 max=4978.275468  # Perf_Create:RSA_1024.csv of 4 runs, 2200 samples
Create             password   rsa-2048       n=2200 mean=5099.658335 p50=4306.808686 p90=9711.084964 p95=11571.917435 p99=16250.476151 stdev=3382.262082 min=20.862903 max=32591.950559  # Perf_Create:RSA_2048.csv of 4 runs, 2200 samples
Create             password   aes-128        n=2200 mean=9.744603 p50=9.812025 p90=10.139282 p95=10.203868 p99=10.438792 stdev=0.615893 min=9.070958 max=29.475158  # Perf_Create:SYMCIPHER_0x0006_128.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.ctr.decrypt.256b n=2200 mean=3.552008 p50=3.71621 p90=3.859017 p95=3.905 p99=4.141446 stdev=0.551548 min=2.683061 max=12.368542  # Perf_EncryptDecrypt:0x0006_128_0x0040_decrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.ctr.encrypt.256b n=2200 mean=3.565867 p50=3.708515 p90=3.855504 p95=3.889 p99=3.999603 stdev=1.836125 min=2.685516 max=85.629188  # Perf_EncryptDecrypt:0x0006_128_0x0040_encrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.ofb.decrypt.256b n=2200 mean=4.885947 p50=4.859429 p90=5.025014 p95=5.179568 p99=5.509621 stdev=0.414457 min=4.435191 max=20.247726  # Perf_EncryptDecrypt:0x0006_128_0x0041_decrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.ofb.encrypt.256b n=2200 mean=4.887165 p50=4.856708 p90=5.025 p95=5.118775 p99=5.539649 stdev=0.529109 min=4.402668 max=23.898595  # Perf_EncryptDecrypt:0x0006_128_0x0041_encrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.cbc.decrypt.256b n=2200 mean=3.280116 p50=3.452268 p90=3.786098 p95=3.829086 p99=4.116989 stdev=0.674655 min=2.670015 max=23.13829  # Perf_EncryptDecrypt:0x0006_128_0x0042_decrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.cbc.encrypt.256b n=2200 mean=3.327846 p50=3.512484 p90=3.800161 p95=3.851779 p99=4.266005 stdev=0.538606 min=2.666476 max=13.488089  # Perf_EncryptDecrypt:0x0006_128_0x0042_encrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.cfb.decrypt.256b n=2200 mean=4.906694 p50=4.8629 p90=5.046035 p95=5.43195 p99=5.685526 stdev=0.476197 min=4.440554 max=16.295499  # Perf_EncryptDecrypt:0x0006_128_0x0043_decrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.cfb.encrypt.256b n=2200 mean=4.894081 p50=4.851691 p90=5.030219 p95=5.38393 p99=5.544157 stdev=0.545879 min=4.418428 max=20.063285  # Perf_EncryptDecrypt:0x0006_128_0x0043_encrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.ecb.decrypt.256b n=2200 mean=2.9993 p50=2.783527 p90=3.605224 p95=3.656 p99=3.913497 stdev=0.537115 min=2.59895 max=16.126508  # Perf_EncryptDecrypt:0x0006_128_0x0044_decrypt.csv of 4 runs, 2200 samples
EncryptDecrypt     password   aes-128.ecb.encrypt.256b n=2200 mean=3.006686 p50=2.784096 p90=3.595757 p95=3.650314 p99=3.771863 stdev=0.511986 min=2.611342 max=13.610769  # Perf_EncryptDecrypt:0x0006_128_0x0044_encrypt.csv of 4 runs, 2200 samples
GetRandom          none       32b            n=2200 mean=2.728653 p50=2.656315 p90=3.292241 p95=3.370568 p99=3.4428 stdev=0.488123 min=2.315352 max=22.036179  # Perf_GetRandom.csv of 4 runs, 2200 samples
HMAC               password   sha256.256b    n=2200 mean=3.713084 p50=3.706673 p90=3.864585 p95=3.890641 p99=4.16057 stdev=0.531646 min=3.190367 max=26.091493  # Perf_HMAC.csv of 4 runs, 2200 samples
Hash               none       sha1.256b      n=2200 mean=2.900003 p50=2.707953 p90=3.490269 p95=3.557 p99=3.664773 stdev=0.48025 min=2.539869 max=12.387098  # Perf_Hash:0x0004.csv of 4 runs, 2200 samples
Hash               none       sha256.256b    n=2200 mean=2.921048 p50=2.715084 p90=3.510915 p95=3.564567 p99=3.659197 stdev=0.448767 min=2.547922 max=12.419164  # Perf_Hash:0x000b.csv of 4 runs, 2200 samples
RSA_Decrypt        password   rsa-1024.null  n=2200 mean=34.389971 p50=33.985341 p90=34.103978 p95=34.311154 p99=54.107481 stdev=2.705582 min=33.513615 max=57.997161  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 4 runs, 2200 samples
RSA_Decrypt        password   rsa-1024.rsaes n=2200 mean=34.335112 p50=33.984917 p90=34.097 p95=34.202802 p99=54.087622 stdev=2.629054 min=33.487696 max=56.00544  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 4 runs, 2200 samples
RSA_Decrypt        password   rsa-1024.oaep  n=2200 mean=36.444523 p50=35.984323 p90=36.08959 p95=36.141087 p99=56.084662 stdev=3.056981 min=35.318253 max=58.949013  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 4 runs, 2200 samples
RSA_Decrypt        password   rsa-2048.null  n=2200 mean=229.430148 p50=228.987 p90=229.130281 p95=229.538735 p99=249.073015 stdev=2.953493 min=228.69851 max=279.156332  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 4 runs, 2200 samples
RSA_Decrypt        password   rsa-2048.rsaes n=2200 mean=229.361543 p50=228.987058 p90=229.09882 p95=229.253954 p99=249.008 stdev=2.637033 min=228.595991 max=250.965817  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 4 runs, 2200 samples
RSA_Decrypt        password   rsa-2048.oaep  n=2200 mean=232.496769 p50=231.991611 p90=232.858 p95=232.975835 p99=251.982983 stdev=3.412512 min=231.831199 max=322.511167  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 4 runs, 2200 samples
RSA_Encrypt        none       rsa-1024.null  n=2200 mean=6.340342 p50=5.808086 p90=6.001887 p95=6.044691 p99=26.198569 stdev=3.419823 min=4.821 max=28.393165  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 4 runs, 2200 samples
RSA_Encrypt        none       rsa-1024.rsaes n=2200 mean=6.092328 p50=5.818213 p90=6.003168 p95=6.048788 p99=25.897847 stdev=2.460938 min=4.950913 max=32.254684  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 4 runs, 2200 samples
RSA_Encrypt        none       rsa-1024.oaep  n=2200 mean=7.251967 p50=6.997 p90=7.722427 p95=7.745852 p99=7.925106 stdev=2.656106 min=6.71367 max=123.225645  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 4 runs, 2200 samples
RSA_Encrypt        none       rsa-2048.null  n=2200 mean=11.63775 p50=11.038939 p90=11.959264 p95=11.995622 p99=31.972647 stdev=2.614125 min=10.82641 max=33.772061  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 4 runs, 2200 samples
RSA_Encrypt        none       rsa-2048.rsaes n=2200 mean=12.554956 p50=11.967633 p90=12.061386 p95=12.134663 p99=32.039546 stdev=3.791085 min=11.028105 max=85.465293  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 4 runs, 2200 samples
RSA_Encrypt        none       rsa-2048.oaep  n=2200 mean=15.402745 p50=14.979 p90=15.095047 p95=15.202648 p99=31.991167 stdev=2.712035 min=14.211309 max=37.001419  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 4 runs, 2200 samples
Sign               password   ecc-p256.ecdsa n=2200 mean=136.398464 p50=135.986369 p90=136.120241 p95=136.518345 p99=156.002123 stdev=2.951481 min=132.877904 max=177.488308  # Perf_Sign:ECC_0x0003_0x0018.csv of 4 runs, 2200 samples
Sign               password   ecc-p256.ecdaa n=2000 mean=5.127308 p50=4.786567 p90=4.91018 p95=4.955918 p99=23.979509 stdev=2.557462 min=3.847726 max=26.989259  # Perf_Sign:ECC_0x0003_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecschnorr n=2200 mean=49.430608 p50=48.992484 p90=49.934928 p95=49.983694 p99=69.154682 stdev=2.420961 min=47.096 max=70.989642  # Perf_Sign:ECC_0x0003_0x001c.csv of 4 runs, 2200 samples
Sign               password   ecc-bnp256.ecdsa n=2200 mean=271.931746 p50=271.912355 p90=272.061119 p95=272.13 p99=290.984743 stdev=3.485185 min=265.889527 max=344.472516  # Perf_Sign:ECC_0x0010_0x0018.csv of 4 runs, 2200 samples
Sign               password   ecc-bnp256.ecdaa n=2000 mean=4.821128 p50=4.796315 p90=4.897051 p95=4.927043 p99=5.230222 stdev=0.483075 min=3.853437 max=14.07492  # Perf_Sign:ECC_0x0010_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecschnorr n=2200 mean=94.028742 p50=93.984568 p90=94.063 p95=94.112241 p99=94.519893 stdev=1.699876 min=89.981568 max=134.094793  # Perf_Sign:ECC_0x0010_0x001c.csv of 4 runs, 2200 samples
Sign               password   rsa-1024.rsassa n=2200 mean=34.027092 p50=33.984691 p90=34.078338 p95=34.110334 p99=34.427165 stdev=0.829404 min=33.459285 max=54.148  # Perf_Sign:RSA_1024_0x0014.csv of 4 runs, 2200 samples
Sign               password   rsa-1024.rsapss n=2200 mean=35.045977 p50=34.986 p90=35.109141 p95=35.428273 p99=35.885826 stdev=0.518653 min=34.700616 max=55  # Perf_Sign:RSA_1024_0x0016.csv of 4 runs, 2200 samples
Sign               password   rsa-2048.rsassa n=2200 mean=229.382082 p50=228.988449 p90=229.154436 p95=229.569621 p99=248.990038 stdev=2.518902 min=228.676719 max=251.986627  # Perf_Sign:RSA_2048_0x0014.csv of 4 runs, 2200 samples
Sign               password   rsa-2048.rsapss n=2200 mean=232.448357 p50=231.974917 p90=232.064386 p95=232.142357 p99=249.077069 stdev=4.662428 min=230.957469 max=400.502897  # Perf_Sign:RSA_2048_0x0016.csv of 4 runs, 2200 samples
VerifySignature    none       ecc-p256.ecdsa n=2200 mean=49.630427 p50=48.985204 p90=49.09589 p95=49.147871 p99=68.997832 stdev=4.559492 min=47.99286 max=159.678441  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 4 runs, 2200 samples
VerifySignature    none       ecc-p256.ecschnorr n=2200 mean=95.907284 p50=95.585087 p90=96.004188 p95=96.035 p99=115.97417 stdev=2.934898 min=94.739827 max=116.857677  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 4 runs, 2200 samples
VerifySignature    none       ecc-bnp256.ecdsa n=2200 mean=94.615344 p50=93.986344 p90=94.116267 p95=94.212658 p99=114.009353 stdev=3.650653 min=93.22797 max=164.905873  # Perf_VerifySignature:ECC_0x0010_0x0018.csv of 4 runs, 2200 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=2200 mean=186.468815 p50=185.98377 p90=186.084599 p95=186.160332 p99=206.006047 stdev=3.148476 min=184.979 max=209.317301  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 4 runs, 2200 samples
VerifySignature    none       rsa-1024.rsassa n=2200 mean=5.738157 p50=5.746665 p90=5.959109 p95=5.986381 p99=6.082564 stdev=0.924192 min=4.814332 max=27.052  # Perf_VerifySignature:RSA_1024_0x0014.csv of 4 runs, 2200 samples
VerifySignature    none       rsa-1024.rsapss n=2200 mean=6.907117 p50=6.828208 p90=7.004082 p95=7.040177 p99=7.171978 stdev=2.501956 min=5.983494 max=111.168  # Perf_VerifySignature:RSA_1024_0x0016.csv of 4 runs, 2200 samples
VerifySignature    none       rsa-2048.rsassa n=2200 mean=11.487835 p50=11.004762 p90=11.874336 p95=11.916076 p99=31.949307 stdev=2.384633 min=10.818545 max=34.070181  # Perf_VerifySignature:RSA_2048_0x0014.csv of 4 runs, 2200 samples
VerifySignature    none       rsa-2048.rsapss n=2200 mean=14.218662 p50=13.877242 p90=14.040029 p95=14.131332 p99=34.020566 stdev=3.170019 min=12.922 max=35.095368  # Perf_VerifySignature:RSA_2048_0x0016.csv of 4 runs, 2200 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=2000 mean=95.344663 p50=95.012325 p90=95.196113 p95=95.710917 p99=114.997729 stdev=2.343084 min=93.864078 max=116.237302  # Perf_ZGen:0x0003_0x0019.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=2000 mean=185.416837 p50=185.01017 p90=185.233997 p95=185.873977 p99=204.995363 stdev=4.044812 min=182.054887 max=284.301403  # Perf_ZGen:0x0010_0x0019.csv of 2 runs, 2000 samples
CreatePrimary      password   ecc-p256       derived=Create n=2200 mean=56.153913 p50=55.201021 p90=59.244 p95=64.575038 p99=72.493304 stdev=3.498359 min=53.560182 max=74.202  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=2200 mean=101.034351 p50=100.182442 p90=103.906449 p95=108.929186 p99=117.234994 stdev=3.763436 min=96.173821 max=180.376425  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=2200 mean=9.995973 p50=10.015092 p90=10.252796 p95=10.31 p99=10.781602 stdev=0.264185 min=9.319 max=12.191235  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=2200 mean=1007.475827 p50=861.526521 p90=1814.895249 p95=2148.273624 p99=3053.765439 stdev=595.239696 min=191.440487 max=4978.275468  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=2200 mean=5099.658335 p50=4306.808686 p90=9711.084964 p95=11571.917435 p99=16250.476151 stdev=3382.262082 min=20.862903 max=32591.950559  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=2200 mean=9.744603 p50=9.812025 p90=10.139282 p95=10.203868 p99=10.438792 stdev=0.615893 min=9.070958 max=29.475158  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=2200 mean=2.921048 p50=2.715084 p90=3.510915 p95=3.564567 p99=3.659197 stdev=0.448767 min=2.547922 max=12.419164  # derived: the figures of Hash sha256.256b (one digest)
