tpmtrace-profile 1
name: ifx-slb9670-fw7.62.12.13824
vendor: IFX
chip: SLB9670
firmware: 7.62.12.13824
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020/11/10 22:01:19
source: crocs-muni/tpmscan-dataset, 008ea69c3029fb28 4eecdf78f9197fdb 5d205b33505dda55 a6f7e0d2994fef0c
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: 4 runs of this chip and firmware merged: their samples pooled, min and max over all
note: not imported (failed on the chip or unusable): Create ecc-bnp256 (line 19, error 02d2); EncryptDecrypt aes-128.cfb.decrypt.256b (line 71, error 0143); EncryptDecrypt aes-128.cfb.encrypt.256b (line 85, error 0143); Sign ecc-p256.sm2 (line 297, error 02d2); Sign ecc-p256.ecschnorr (line 308, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=3100 mean=151.450921 p50=151.045411 p90=152.447199 p95=153.193506 p99=154.184 stdev=0.742115 min=150.533303 max=155.592389  # Perf_Create:ECC_0x0003.csv of 4 runs, 3100 samples
Create             password   hmac           n=3100 mean=102.323132 p50=102.109486 p90=103.211 p95=103.682822 p99=104.548 stdev=0.579908 min=101.006134 max=106.542184  # Perf_Create:HMAC.csv of 4 runs, 3100 samples
Create             password   rsa-1024       n=3100 mean=3129.115049 p50=2811.402352 p90=4876.393817 p95=5713.419885 p99=7911.969678 stdev=1353.004545 min=1276.97044 max=13360.409411  # Perf_Create:RSA_1024.csv of 4 runs, 3100 samples
Create             password   rsa-2048       n=3100 mean=12347.787329 p50=10894.119904 p90=21002.109295 p95=25048.108091 p99=32949.096124 stdev=6536.647613 min=110.887 max=44458.136611  # Perf_Create:RSA_2048.csv of 4 runs, 3100 samples
Create             password   aes-128        n=3100 mean=98.017711 p50=97.968524 p90=99.516715 p95=99.553293 p99=100.183 stdev=0.815012 min=96.916427 max=101.416  # Perf_Create:SYMCIPHER_0x0006_128.csv of 4 runs, 3100 samples
GetRandom          none       32b            n=3100 mean=4.276245 p50=3.995629 p90=5.458112 p95=5.570226 p99=5.995787 stdev=0.677596 min=3.089 max=7.419343  # Perf_GetRandom.csv of 4 runs, 3100 samples
HMAC               password   sha256.256b    n=3100 mean=23.876812 p50=23.981715 p90=25.008494 p95=25.189855 p99=26.087566 stdev=0.840869 min=22.84 max=27.103609  # Perf_HMAC.csv of 4 runs, 3100 samples
Hash               none       sha1.256b      n=3100 mean=6.133471 p50=5.78992 p90=7.649239 p95=7.838354 p99=8.000244 stdev=0.821016 min=4.013 max=9.005854  # Perf_Hash:0x0004.csv of 4 runs, 3100 samples
Hash               none       sha256.256b    n=3100 mean=6.09187 p50=5.841002 p90=7.656474 p95=7.893929 p99=8.009451 stdev=0.786678 min=4.599 max=8.914669  # Perf_Hash:0x000b.csv of 4 runs, 3100 samples
RSA_Decrypt        password   rsa-1024.null  n=3100 mean=80.82602 p50=80.950396 p90=81.97 p95=82.223734 p99=83.981343 stdev=0.909738 min=77.993328 max=85.026646  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 4 runs, 3100 samples
RSA_Decrypt        password   rsa-1024.rsaes n=3100 mean=81.66733 p50=81.853471 p90=82.999722 p95=83.982382 p99=84.016486 stdev=1.082274 min=78.574653 max=86.082  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 4 runs, 3100 samples
RSA_Decrypt        password   rsa-1024.oaep  n=3100 mean=127.217822 p50=126.998724 p90=128.975563 p95=129.009827 p99=129.998151 stdev=1.052432 min=124.013661 max=131.007857  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 4 runs, 3100 samples
RSA_Decrypt        password   rsa-2048.null  n=3100 mean=435.580829 p50=435.725088 p90=439.999417 p95=441.00424 p99=443.016339 stdev=3.41264 min=422.737829 max=448.987448  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 4 runs, 3100 samples
RSA_Decrypt        password   rsa-2048.rsaes n=3100 mean=437.06689 p50=436.998126 p90=441.992957 p95=442.99933 p99=445.023 stdev=3.705877 min=424.010104 max=449.93  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 4 runs, 3100 samples
RSA_Decrypt        password   rsa-2048.oaep  n=3100 mean=526.844793 p50=526.990936 p90=531.016279 p95=532.965 p99=534.996064 stdev=3.499534 min=513.292919 max=538.99251  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 4 runs, 3100 samples
RSA_Encrypt        none       rsa-1024.null  n=3100 mean=7.259743 p50=7.003693 p90=7.593929 p95=7.601255 p99=9.140525 stdev=0.485677 min=6.584573 max=9.991  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 4 runs, 3100 samples
RSA_Encrypt        none       rsa-1024.rsaes n=3100 mean=9.194281 p50=9.000123 p90=9.621901 p95=9.630239 p99=11.165817 stdev=0.49172 min=7.902473 max=11.671015  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 4 runs, 3100 samples
RSA_Encrypt        none       rsa-1024.oaep  n=3100 mean=55.755139 p50=55.988342 p90=56.297809 p95=56.819281 p99=57.839024 stdev=0.655064 min=54.884086 max=58.305856  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 4 runs, 3100 samples
RSA_Encrypt        none       rsa-2048.null  n=3100 mean=11.338737 p50=11.175311 p90=12.640562 p95=12.723376 p99=13.014 stdev=0.636001 min=9.966 max=14.751749  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 4 runs, 3100 samples
RSA_Encrypt        none       rsa-2048.rsaes n=3100 mean=16.58956 p50=16.254996 p90=17.73823 p95=17.986458 p99=18.803771 stdev=0.741559 min=14.87 max=19.724195  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 4 runs, 3100 samples
RSA_Encrypt        none       rsa-2048.oaep  n=3100 mean=105.656653 p50=105.67244 p90=106.973534 p95=107.006188 p99=107.206 stdev=0.73505 min=104.312033 max=108.938  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 4 runs, 3100 samples
Sign               password   ecc-p256.ecdsa n=3100 mean=71.102163 p50=70.996591 p90=72.808578 p95=72.994269 p99=73.015302 stdev=0.818131 min=69.597556 max=74.016  # Perf_Sign:ECC_0x0003_0x0018.csv of 4 runs, 3100 samples
Sign               password   rsa-1024.rsassa n=3100 mean=81.172642 p50=81.001127 p90=82.002057 p95=82.047 p99=82.986793 stdev=0.732566 min=78.97906 max=84.873  # Perf_Sign:RSA_1024_0x0014.csv of 4 runs, 3100 samples
Sign               password   rsa-1024.rsapss n=3100 mean=110.211968 p50=110.015825 p90=111.051551 p95=111.102559 p99=112.013623 stdev=0.722269 min=107.973785 max=114.214  # Perf_Sign:RSA_1024_0x0016.csv of 4 runs, 3100 samples
Sign               password   rsa-2048.rsassa n=3100 mean=437.198777 p50=437.004125 p90=441.803 p95=442.995265 p99=445.001549 stdev=3.342014 min=426.139178 max=450.007454  # Perf_Sign:RSA_2048_0x0014.csv of 4 runs, 3100 samples
Sign               password   rsa-2048.rsapss n=3100 mean=494.482758 p50=494.621531 p90=498.995739 p95=500.004009 p99=503.003927 stdev=3.513112 min=481.481783 max=508.007  # Perf_Sign:RSA_2048_0x0016.csv of 4 runs, 3100 samples
VerifySignature    none       ecc-p256.ecdsa n=3100 mean=106.65656 p50=106.623342 p90=107.999322 p95=108.98624 p99=109.00952 stdev=0.990219 min=99.292855 max=110.999622  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 4 runs, 3100 samples
VerifySignature    none       rsa-1024.rsassa n=3100 mean=7.761731 p50=7.411464 p90=9.078 p95=9.4656 p99=9.999946 stdev=0.812843 min=6.423 max=10.47187  # Perf_VerifySignature:RSA_1024_0x0014.csv of 4 runs, 3100 samples
VerifySignature    none       rsa-1024.rsapss n=3100 mean=37.165836 p50=36.994787 p90=38.856282 p95=39.351054 p99=40.905692 stdev=1.203883 min=35.823 max=41.922211  # Perf_VerifySignature:RSA_1024_0x0016.csv of 4 runs, 3100 samples
VerifySignature    none       rsa-2048.rsassa n=3100 mean=13.768255 p50=14.014113 p90=15.471206 p95=16.490275 p99=17.004675 stdev=1.753155 min=10.201162 max=17.252875  # Perf_VerifySignature:RSA_2048_0x0014.csv of 4 runs, 3100 samples
VerifySignature    none       rsa-2048.rsapss n=3100 mean=69.306433 p50=68.999131 p90=70.990488 p95=71.000652 p99=73.012 stdev=0.967455 min=67.534384 max=74.998  # Perf_VerifySignature:RSA_2048_0x0016.csv of 4 runs, 3100 samples
Create             password   ecc-bnp256     n=3000 mean=151.292782 p50=151.050653 p90=151.621136 p95=152.447618 p99=153.60803 stdev=0.57396 min=149.873672 max=153.737131  # Perf_Create:ECC_0x0010.csv of 3 runs, 3000 samples
Sign               password   ecc-p256.ecdaa n=3000 mean=41.726518 p50=41.838165 p90=43.864567 p95=43.953158 p99=43.966599 stdev=0.978671 min=40.53842 max=44.039242  # Perf_Sign:ECC_0x0003_0x001a.csv of 3 runs, 3000 samples
Sign               password   ecc-bnp256.ecdaa n=3000 mean=42.033534 p50=41.932354 p90=43.941133 p95=43.953273 p99=43.966692 stdev=0.915087 min=40.929049 max=45.955475  # Perf_Sign:ECC_0x0010_0x001a.csv of 3 runs, 3000 samples
CreatePrimary      password   ecc-p256       derived=Create n=3100 mean=151.450921 p50=151.045411 p90=152.447199 p95=153.193506 p99=154.184 stdev=0.742115 min=150.533303 max=155.592389  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=3100 mean=102.323132 p50=102.109486 p90=103.211 p95=103.682822 p99=104.548 stdev=0.579908 min=101.006134 max=106.542184  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=3100 mean=3129.115049 p50=2811.402352 p90=4876.393817 p95=5713.419885 p99=7911.969678 stdev=1353.004545 min=1276.97044 max=13360.409411  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=3100 mean=12347.787329 p50=10894.119904 p90=21002.109295 p95=25048.108091 p99=32949.096124 stdev=6536.647613 min=110.887 max=44458.136611  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=3100 mean=98.017711 p50=97.968524 p90=99.516715 p95=99.553293 p99=100.183 stdev=0.815012 min=96.916427 max=101.416  # derived: the figures of Create aes-128 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=3000 mean=151.292782 p50=151.050653 p90=151.621136 p95=152.447618 p99=153.60803 stdev=0.57396 min=149.873672 max=153.737131  # derived: the figures of Create ecc-bnp256 (same key type)
PCR_Extend         password   -              derived=Hash n=3100 mean=6.09187 p50=5.841002 p90=7.656474 p95=7.893929 p99=8.009451 stdev=0.786678 min=4.599 max=8.914669  # derived: the figures of Hash sha256.256b (one digest)
