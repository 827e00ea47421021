tpmtrace-profile 1
name: intc-intel-fw303.12.0.0
vendor: INTC
chip: Intel
firmware: 303.12.0.0
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/02/03 00:21:16
source: crocs-muni/tpmscan-dataset, 820305b505ee236c 82374cfea9a6ae7d c54a5c95a8cca56b f1f56439430fa30b fbf7cf7cc072a8a3
covers: Create EncryptDecrypt GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: 20EQS64N00; Linux algtest-live 6.1.5-200.fc37.x86_64 #1 SMP PREEMPT_DYNAMIC Thu Jan 12 15:52:00 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 5 runs of this chip and firmware merged: their samples pooled, min and max over all
note: not imported (failed on the chip or unusable): Sign ecc-p256.sm2 (line 420, error 02d2); Sign ecc-bnp256.sm2 (line 464, error 02d2); ZGen_2Phase ecc-p256.sm2 (line 633, error 03d2); ZGen_2Phase ecc-p256.ecmqv (line 644, error 03d2); ZGen_2Phase ecc-bnp256.sm2 (line 666, error 03d2); ZGen_2Phase ecc-bnp256.ecmqv (line 677, error 03d2); Sign ecc-p256.sm2 (line 409, error 02d2); Sign ecc-bnp256.sm2 (line 442, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=4100 mean=57.281532 p50=56.99 p90=58.843968 p95=61.689879 p99=65.003 stdev=1.940333 min=53.988 max=79.581  # Perf_Create:ECC_0x0003.csv of 5 runs, 4100 samples
Create             password   ecc-bnp256     n=4100 mean=101.950203 p50=102.020714 p90=102.13 p95=102.161581 p99=102.515317 stdev=0.603054 min=99.247 max=117.415  # Perf_Create:ECC_0x0010.csv of 5 runs, 4100 samples
Create             password   hmac           n=4100 mean=10.969827 p50=11.027 p90=11.147 p95=11.166 p99=11.496 stdev=0.412182 min=8.993 max=27.361  # Perf_Create:HMAC.csv of 5 runs, 4100 samples
Create             password   rsa-1024       n=4099 mean=966.430797 p50=846.011 p90=1727.975 p95=2110.182 p99=2833.063 stdev=568.163484 min=192.013 max=3897.036276  # Perf_Create:RSA_1024.csv of 5 runs, 4099 samples
Create             password   rsa-2048       n=4100 mean=5142.251244 p50=4495.693 p90=9319.18505 p95=11060.03 p99=15168.078 stdev=3135.333855 min=17.24 max=24182.927  # Perf_Create:RSA_2048.csv of 5 runs, 4100 samples
Create             password   aes-128        n=4100 mean=10.940866 p50=11.018 p90=11.141 p95=11.167 p99=11.379125 stdev=0.387446 min=8.06081 max=23.005  # Perf_Create:SYMCIPHER_0x0006_128.csv of 5 runs, 4100 samples
EncryptDecrypt     password   aes-128.ctr.decrypt.256b n=4100 mean=4.958979 p50=4.984 p90=5.102 p95=5.137796 p99=5.456 stdev=0.261083 min=2.501 max=6.962  # Perf_EncryptDecrypt:0x0006_128_0x0040_decrypt.csv of 5 runs, 4100 samples
EncryptDecrypt     password   aes-128.ctr.encrypt.256b n=4100 mean=4.960752 p50=4.984 p90=5.099 p95=5.139 p99=5.445 stdev=0.259392 min=2.797 max=8.981131  # Perf_EncryptDecrypt:0x0006_128_0x0040_encrypt.csv of 5 runs, 4100 samples
EncryptDecrypt     password   aes-128.ofb.decrypt.256b n=4098 mean=6.703647 p50=6.955907 p90=7.085208 p95=7.169 p99=7.514 stdev=0.526598 min=3.523964 max=15.978206  # Perf_EncryptDecrypt:0x0006_128_0x0041_decrypt.csv of 5 runs, 4098 samples
EncryptDecrypt     password   aes-128.ofb.encrypt.256b n=4098 mean=6.691358 p50=6.953 p90=7.075 p95=7.133 p99=7.494 stdev=0.51899 min=4.446 max=9.971  # Perf_EncryptDecrypt:0x0006_128_0x0041_encrypt.csv of 5 runs, 4098 samples
EncryptDecrypt     password   aes-128.cbc.decrypt.256b n=4100 mean=4.981787 p50=4.988 p90=5.293 p95=5.396 p99=5.703 stdev=0.324355 min=2.774 max=7.57357  # Perf_EncryptDecrypt:0x0006_128_0x0042_decrypt.csv of 5 runs, 4100 samples
EncryptDecrypt     password   aes-128.cbc.encrypt.256b n=4100 mean=4.978684 p50=4.988 p90=5.273 p95=5.382 p99=5.649 stdev=0.351002 min=2.55844 max=16.052  # Perf_EncryptDecrypt:0x0006_128_0x0042_encrypt.csv of 5 runs, 4100 samples
EncryptDecrypt     password   aes-128.cfb.decrypt.256b n=4100 mean=6.6974 p50=6.954753 p90=7.076409 p95=7.135 p99=7.499 stdev=0.50767 min=4.456 max=10.846  # Perf_EncryptDecrypt:0x0006_128_0x0043_decrypt.csv of 5 runs, 4100 samples
EncryptDecrypt     password   aes-128.cfb.encrypt.256b n=4099 mean=6.687051 p50=6.942 p90=7.082 p95=7.147997 p99=7.513 stdev=1.05907 min=4.445 max=64.993  # Perf_EncryptDecrypt:0x0006_128_0x0043_encrypt.csv of 5 runs, 4099 samples
EncryptDecrypt     password   aes-128.ecb.decrypt.256b n=4100 mean=4.956729 p50=4.986 p90=5.157 p95=5.395963 p99=5.746841 stdev=0.393788 min=2.681 max=8.08  # Perf_EncryptDecrypt:0x0006_128_0x0044_decrypt.csv of 5 runs, 4100 samples
EncryptDecrypt     password   aes-128.ecb.encrypt.256b n=4100 mean=4.948542 p50=4.986 p90=5.118659 p95=5.367 p99=5.686 stdev=0.378975 min=2.675 max=8.404  # Perf_EncryptDecrypt:0x0006_128_0x0044_encrypt.csv of 5 runs, 4100 samples
GetRandom          none       32b            n=4100 mean=4.872632 p50=4.981 p90=5.093 p95=5.13 p99=5.968 stdev=0.46499 min=2.498 max=12.955971  # Perf_GetRandom.csv of 5 runs, 4100 samples
HMAC               password   sha256.256b    n=4100 mean=4.989798 p50=4.988 p90=5.358181 p95=5.424 p99=5.756 stdev=0.322059 min=2.496 max=8.003  # Perf_HMAC.csv of 5 runs, 4100 samples
Hash               none       sha1.256b      n=4100 mean=4.938968 p50=4.984 p90=5.278654 p95=5.415 p99=5.721971 stdev=0.423497 min=2.628 max=9.086  # Perf_Hash:0x0004.csv of 5 runs, 4100 samples
Hash               none       sha256.256b    n=4100 mean=4.943279 p50=4.985 p90=5.275 p95=5.425 p99=5.723 stdev=0.410844 min=2.656 max=8.98  # Perf_Hash:0x000b.csv of 5 runs, 4100 samples
RSA_Decrypt        password   rsa-1024.null  n=4100 mean=35.875032 p50=35.979 p90=36.153029 p95=36.23459 p99=36.46 stdev=0.553851 min=33.798 max=57.048  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 5 runs, 4100 samples
RSA_Decrypt        password   rsa-1024.rsaes n=4100 mean=35.900673 p50=35.978 p90=36.111 p95=36.201 p99=36.412499 stdev=0.613255 min=32.99 max=54.877  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 5 runs, 4100 samples
RSA_Decrypt        password   rsa-1024.oaep  n=4100 mean=37.040776 p50=36.984 p90=37.215 p95=37.473 p99=38.336 stdev=0.57656 min=34.907 max=55.986  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 5 runs, 4100 samples
RSA_Decrypt        password   rsa-2048.null  n=4100 mean=232.738147 p50=230.979 p90=231.968 p95=249.992 p99=251.059539 stdev=5.663719 min=228.774 max=261.69  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 5 runs, 4100 samples
RSA_Decrypt        password   rsa-2048.rsaes n=4100 mean=232.794905 p50=230.977213 p90=231.992 p95=250.014 p99=251.621 stdev=5.856785 min=228.793 max=294.588  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 5 runs, 4100 samples
RSA_Decrypt        password   rsa-2048.oaep  n=4100 mean=235.366067 p50=233.983244 p90=234.369 p95=253.339 p99=254.967 stdev=5.232152 min=230.845 max=260.341  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 5 runs, 4100 samples
RSA_Encrypt        none       rsa-1024.null  n=4100 mean=7.072126 p50=6.993 p90=7.47 p95=7.564568 p99=7.888438 stdev=0.629602 min=4.498 max=26.403  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 5 runs, 4100 samples
RSA_Encrypt        none       rsa-1024.rsaes n=4100 mean=7.055783 p50=6.991 p90=7.446 p95=7.531 p99=7.787 stdev=0.629505 min=5.895 max=27.917  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 5 runs, 4100 samples
RSA_Encrypt        none       rsa-1024.oaep  n=4100 mean=8.92775 p50=8.98 p90=9.119385 p95=9.347 p99=9.459 stdev=0.496971 min=6.799 max=27.179  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 5 runs, 4100 samples
RSA_Encrypt        none       rsa-2048.null  n=4100 mean=14.671138 p50=12.99091 p90=13.891 p95=32.958 p99=34.246 stdev=5.555027 min=10.919 max=36.359  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 5 runs, 4100 samples
RSA_Encrypt        none       rsa-2048.rsaes n=4100 mean=15.067899 p50=13.673 p90=14.156 p95=32.952 p99=34.978 stdev=5.519023 min=10.37 max=35.986  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 5 runs, 4100 samples
RSA_Encrypt        none       rsa-2048.oaep  n=4100 mean=17.308821 p50=16.085 p90=17.038 p95=31.457 p99=34.137 stdev=4.25465 min=14.823 max=81.731  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 5 runs, 4100 samples
Sign               password   ecc-p256.ecdsa n=4100 mean=138.937615 p50=138.979 p90=139.343 p95=139.438 p99=140.875 stdev=0.794302 min=136.351 max=160.917  # Perf_Sign:ECC_0x0003_0x0018.csv of 5 runs, 4100 samples
Sign               password   ecc-p256.ecdaa n=4000 mean=6.052455 p50=5.992 p90=6.402 p95=6.486 p99=6.796 stdev=0.339854 min=3.74 max=17.011625  # Perf_Sign:ECC_0x0003_0x001a.csv of 4 runs, 4000 samples
Sign               password   ecc-p256.ecschnorr n=4100 mean=50.928736 p50=50.979 p90=51.086 p95=51.114 p99=51.42 stdev=0.616254 min=49.545 max=71.033  # Perf_Sign:ECC_0x0003_0x001c.csv of 5 runs, 4100 samples
Sign               password   ecc-bnp256.ecdsa n=4100 mean=275.416456 p50=275.577 p90=276.089779 p95=276.145 p99=276.635 stdev=1.107556 min=271.819 max=294.867  # Perf_Sign:ECC_0x0010_0x0018.csv of 5 runs, 4100 samples
Sign               password   ecc-bnp256.ecdaa n=4000 mean=6.059032 p50=5.992 p90=6.398 p95=6.487 p99=6.794 stdev=0.376722 min=5.487 max=15.998483  # Perf_Sign:ECC_0x0010_0x001a.csv of 4 runs, 4000 samples
Sign               password   ecc-bnp256.ecschnorr n=4100 mean=95.997507 p50=95.978105 p90=96.493 p95=96.786 p99=96.998 stdev=0.799405 min=93.819 max=115.889  # Perf_Sign:ECC_0x0010_0x001c.csv of 5 runs, 4100 samples
Sign               password   rsa-1024.rsassa n=4100 mean=35.935177 p50=35.978 p90=36.094 p95=36.12246 p99=36.354 stdev=0.587998 min=33.704 max=54.84  # Perf_Sign:RSA_1024_0x0014.csv of 5 runs, 4100 samples
Sign               password   rsa-1024.rsapss n=4100 mean=36.926158 p50=36.979 p90=37.100459 p95=37.217681 p99=37.388 stdev=0.511923 min=33.97855 max=54.038  # Perf_Sign:RSA_1024_0x0016.csv of 5 runs, 4100 samples
Sign               password   rsa-2048.rsassa n=4100 mean=232.401415 p50=230.979 p90=231.335 p95=249.987 p99=251.034971 stdev=5.16101 min=228.79 max=261.914814  # Perf_Sign:RSA_2048_0x0014.csv of 5 runs, 4100 samples
Sign               password   rsa-2048.rsapss n=4100 mean=234.261911 p50=232.981 p90=233.123238 p95=250.717 p99=251.984 stdev=4.71545 min=230.785 max=261.065  # Perf_Sign:RSA_2048_0x0016.csv of 5 runs, 4100 samples
VerifySignature    none       ecc-p256.ecdsa n=4100 mean=52.168027 p50=50.138623 p90=51.121 p95=69.956905 p99=71.961 stdev=5.606699 min=49.414127 max=72.987  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 5 runs, 4100 samples
VerifySignature    none       ecc-p256.ecschnorr n=4100 mean=98.226491 p50=97.97 p90=98.092648 p95=98.136958 p99=117.972 stdev=2.974238 min=96.306 max=120.1162  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 5 runs, 4100 samples
VerifySignature    none       ecc-bnp256.ecdsa n=4100 mean=96.224231 p50=95.993539 p90=96.965 p95=97 p99=97.335 stdev=0.648664 min=93.938 max=114.995  # Perf_VerifySignature:ECC_0x0010_0x0018.csv of 5 runs, 4100 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=4100 mean=188.9953 p50=188.994224 p90=189.973 p95=190.094 p99=190.46535 stdev=0.917579 min=187.077 max=208.99  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 5 runs, 4100 samples
VerifySignature    none       rsa-1024.rsassa n=4100 mean=7.077314 p50=6.989733 p90=7.426 p95=7.508 p99=7.862 stdev=1.361882 min=4.408773 max=73.985  # Perf_VerifySignature:RSA_1024_0x0014.csv of 5 runs, 4100 samples
VerifySignature    none       rsa-1024.rsapss n=4100 mean=8.065153 p50=7.989 p90=8.415 p95=8.655 p99=8.969 stdev=0.637708 min=6.837 max=27.001  # Perf_VerifySignature:RSA_1024_0x0016.csv of 5 runs, 4100 samples
VerifySignature    none       rsa-2048.rsassa n=4100 mean=14.97242 p50=12.985 p90=30.978946 p95=32.965 p99=33.958922 stdev=6.018784 min=10.975 max=39.867292  # Perf_VerifySignature:RSA_2048_0x0014.csv of 5 runs, 4100 samples
VerifySignature    none       rsa-2048.rsapss n=4100 mean=17.051367 p50=14.983 p90=33.688615 p95=34.977 p99=35.989 stdev=6.52999 min=12.954 max=131.981  # Perf_VerifySignature:RSA_2048_0x0016.csv of 5 runs, 4100 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=4000 mean=97.516598 p50=97.76 p90=98.01 p95=98.054 p99=98.339175 stdev=0.578524 min=96.306 max=108.938  # Perf_ZGen:0x0003_0x0019.csv of 4 runs, 4000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=4000 mean=188.901164 p50=188.989 p90=189.312 p95=189.410519 p99=189.528 stdev=0.623715 min=186.591 max=199.969852  # Perf_ZGen:0x0010_0x0019.csv of 4 runs, 4000 samples
CreatePrimary      password   ecc-p256       derived=Create n=4100 mean=57.281532 p50=56.99 p90=58.843968 p95=61.689879 p99=65.003 stdev=1.940333 min=53.988 max=79.581  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=4100 mean=101.950203 p50=102.020714 p90=102.13 p95=102.161581 p99=102.515317 stdev=0.603054 min=99.247 max=117.415  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=4100 mean=10.969827 p50=11.027 p90=11.147 p95=11.166 p99=11.496 stdev=0.412182 min=8.993 max=27.361  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=4099 mean=966.430797 p50=846.011 p90=1727.975 p95=2110.182 p99=2833.063 stdev=568.163484 min=192.013 max=3897.036276  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=4100 mean=5142.251244 p50=4495.693 p90=9319.18505 p95=11060.03 p99=15168.078 stdev=3135.333855 min=17.24 max=24182.927  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=4100 mean=10.940866 p50=11.018 p90=11.141 p95=11.167 p99=11.379125 stdev=0.387446 min=8.06081 max=23.005  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=4100 mean=4.943279 p50=4.985 p90=5.275 p95=5.425 p99=5.723 stdev=0.410844 min=2.656 max=8.98  # derived: the figures of Hash sha256.256b (one digest)
