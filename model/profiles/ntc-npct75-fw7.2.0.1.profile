tpmtrace-profile 1
name: ntc-npct75-fw7.2.0.1
vendor: NTC
chip: NPCT75x6rls
firmware: 7.2.0.1
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/16 06:06:33
source: crocs-muni/tpmscan-dataset, 2c925efa6f8ea966 4b5ef9c2c91ff640 81355d2b3c060724 82441c5a8020f5c8
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: Precision Tower 3430; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 4 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=4000 mean=24.946464 p50=24.797918 p90=25.571832 p95=25.69443 p99=25.834857 stdev=0.560069 min=23.605495 max=35.991593  # Perf_Create:ECC_0x0003.csv of 4 runs, 4000 samples
Create             password   ecc-p384       n=4000 mean=40.527344 p50=40.58774 p90=40.952946 p95=40.978836 p99=41.091573 stdev=0.469767 min=39.102403 max=52.213504  # Perf_Create:ECC_0x0004.csv of 4 runs, 4000 samples
Create             password   ecc-bnp256     n=4000 mean=40.302824 p50=40.442204 p90=40.715611 p95=40.807965 p99=40.889354 stdev=0.503358 min=38.809405 max=51.009367  # Perf_Create:ECC_0x0010.csv of 4 runs, 4000 samples
Create             password   hmac           n=4000 mean=10.837707 p50=10.74235 p90=11.654597 p95=11.670725 p99=11.751998 stdev=0.434693 min=10.160819 max=21.136875  # Perf_Create:HMAC.csv of 4 runs, 4000 samples
Create             password   rsa-1024       n=4000 mean=730.183432 p50=652.225965 p90=1096.169167 p95=1279.143399 p99=1862.190728 stdev=392.300861 min=281.192632 max=8679.367232  # Perf_Create:RSA_1024.csv of 4 runs, 4000 samples
Create             password   rsa-2048       n=4000 mean=3522.861045 p50=3043.75309 p90=6170.996331 p95=7373.761274 p99=10204.718933 stdev=2448.815572 min=645.705975 max=62734.716013  # Perf_Create:RSA_2048.csv of 4 runs, 4000 samples
GetRandom          none       32b            n=4000 mean=2.82366 p50=2.777454 p90=2.995159 p95=3.004274 p99=3.128183 stdev=0.199817 min=2.328827 max=4.070052  # Perf_GetRandom.csv of 4 runs, 4000 samples
HMAC               password   sha256.256b    n=4000 mean=3.370194 p50=3.368547 p90=3.663321 p95=3.69927 p99=3.718276 stdev=0.261488 min=2.872845 max=4.199781  # Perf_HMAC.csv of 4 runs, 4000 samples
Hash               none       sha1.256b      n=4000 mean=3.362095 p50=3.449018 p90=3.573414 p95=3.620886 p99=3.633245 stdev=0.247172 min=2.833437 max=5.258071  # Perf_Hash:0x0004.csv of 4 runs, 4000 samples
Hash               none       sha256.256b    n=4000 mean=3.364833 p50=3.410136 p90=3.619684 p95=3.670631 p99=3.684901 stdev=0.247887 min=2.849409 max=3.746137  # Perf_Hash:0x000b.csv of 4 runs, 4000 samples
Hash               none       sha384.256b    n=4000 mean=3.377322 p50=3.358539 p90=3.691873 p95=3.728173 p99=3.755964 stdev=0.291225 min=2.887191 max=10.539811  # Perf_Hash:0x000c.csv of 4 runs, 4000 samples
RSA_Decrypt        password   rsa-1024.null  n=4000 mean=19.810149 p50=19.898553 p90=20.513452 p95=20.518552 p99=20.521936 stdev=0.436418 min=18.737548 max=27.042004  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 4 runs, 4000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=4000 mean=20.235306 p50=20.135204 p90=20.51751 p95=20.520313 p99=20.996883 stdev=0.300443 min=19.745339 max=27.962918  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 4 runs, 4000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=4000 mean=21.866774 p50=21.971025 p90=22.37076 p95=22.495543 p99=22.502452 stdev=0.402145 min=21.093746 max=29.698574  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 4 runs, 4000 samples
RSA_Decrypt        password   rsa-2048.null  n=4000 mean=67.648821 p50=67.777031 p90=68.051211 p95=68.095216 p99=68.267307 stdev=0.472588 min=66.58886 max=75.112974  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 4 runs, 4000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=4000 mean=69.748965 p50=69.98911 p90=70.12828 p95=70.131365 p99=70.16707 stdev=0.467697 min=68.756968 max=76.822097  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 4 runs, 4000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=4000 mean=72.658518 p50=72.894229 p90=73.095718 p95=73.131313 p99=73.145675 stdev=0.483034 min=71.752082 max=79.420024  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 4 runs, 4000 samples
RSA_Encrypt        none       rsa-1024.null  n=4000 mean=4.002044 p50=3.99696 p90=4.002781 p95=4.047588 p99=4.198151 stdev=0.130089 min=3.768112 max=7.975714  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 4 runs, 4000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=4000 mean=4.994901 p50=4.99789 p90=5.108915 p95=5.136014 p99=5.180246 stdev=0.09003 min=4.745698 max=6.997782  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 4 runs, 4000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=4000 mean=6.058434 p50=5.998156 p90=6.139533 p95=6.994196 p99=7.000728 stdev=0.310659 min=5.670574 max=13.978445  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 4 runs, 4000 samples
RSA_Encrypt        none       rsa-2048.null  n=4000 mean=6.971096 p50=6.982009 p90=7.253409 p95=7.255754 p99=7.260082 stdev=0.279774 min=5.977761 max=11.346546  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 4 runs, 4000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=4000 mean=8.747346 p50=8.763769 p90=9.039754 p95=9.093249 p99=9.159047 stdev=0.372091 min=8.005767 max=15.709063  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 4 runs, 4000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=4000 mean=10.706697 p50=10.779232 p90=11.002541 p95=11.062475 p99=11.12494 stdev=0.342401 min=9.741172 max=12.993879  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 4 runs, 4000 samples
Sign               password   ecc-p256.ecdsa n=4000 mean=19.938271 p50=19.98552 p90=20.131281 p95=20.132262 p99=20.171682 stdev=0.295838 min=18.914353 max=27.983393  # Perf_Sign:ECC_0x0003_0x0018.csv of 4 runs, 4000 samples
Sign               password   ecc-p256.ecdaa n=4000 mean=5.917187 p50=5.936246 p90=6.086912 p95=6.088736 p99=6.09116 stdev=0.285106 min=4.921707 max=13.679523  # Perf_Sign:ECC_0x0003_0x001a.csv of 4 runs, 4000 samples
Sign               password   ecc-p256.ecschnorr n=4000 mean=17.997335 p50=17.991073 p90=18.105968 p95=18.131486 p99=18.178668 stdev=0.178995 min=17.637987 max=25.981197  # Perf_Sign:ECC_0x0003_0x001c.csv of 4 runs, 4000 samples
Sign               password   ecc-p384.ecdsa n=4000 mean=36.156974 p50=35.99342 p90=36.991482 p95=37.007565 p99=37.132 stdev=0.418316 min=35.726427 max=44.094  # Perf_Sign:ECC_0x0004_0x0018.csv of 4 runs, 4000 samples
Sign               password   ecc-p384.ecdaa n=4000 mean=5.927016 p50=5.942372 p90=6.066499 p95=6.081373 p99=6.124007 stdev=0.203925 min=5.645771 max=13.935432  # Perf_Sign:ECC_0x0004_0x001a.csv of 4 runs, 4000 samples
Sign               password   ecc-p384.ecschnorr n=4000 mean=33.95273 p50=33.990448 p90=34.128665 p95=34.132612 p99=34.147417 stdev=0.244659 min=32.781305 max=41.971189  # Perf_Sign:ECC_0x0004_0x001c.csv of 4 runs, 4000 samples
Sign               password   ecc-bnp256.ecdsa n=4000 mean=19.048599 p50=18.992787 p90=19.132343 p95=19.853643 p99=20.03679 stdev=0.276321 min=18.749436 max=27.160032  # Perf_Sign:ECC_0x0010_0x0018.csv of 4 runs, 4000 samples
Sign               password   ecc-bnp256.ecdaa n=4000 mean=5.951219 p50=5.954393 p90=6.088346 p95=6.089346 p99=6.093774 stdev=0.240721 min=4.905198 max=12.931407  # Perf_Sign:ECC_0x0010_0x001a.csv of 4 runs, 4000 samples
Sign               password   ecc-bnp256.ecschnorr n=4000 mean=17.994612 p50=17.991006 p90=18.102731 p95=18.130227 p99=18.171348 stdev=0.201806 min=17.087553 max=26.115594  # Perf_Sign:ECC_0x0010_0x001c.csv of 4 runs, 4000 samples
Sign               password   rsa-1024.rsassa n=4000 mean=20.002918 p50=19.992147 p90=20.130242 p95=20.132755 p99=20.207888 stdev=0.231297 min=19.703087 max=28.113979  # Perf_Sign:RSA_1024_0x0014.csv of 4 runs, 4000 samples
Sign               password   rsa-1024.rsapss n=4000 mean=21.986066 p50=21.991299 p90=22.129876 p95=22.133662 p99=22.17756 stdev=0.257357 min=20.926068 max=29.986335  # Perf_Sign:RSA_1024_0x0016.csv of 4 runs, 4000 samples
Sign               password   rsa-2048.rsassa n=4000 mean=70.002867 p50=69.990951 p90=70.133878 p95=70.137842 p99=70.2691 stdev=0.253806 min=69.135287 max=77.992415  # Perf_Sign:RSA_2048_0x0014.csv of 4 runs, 4000 samples
Sign               password   rsa-2048.rsapss n=4000 mean=72.313866 p50=72.030707 p90=72.995099 p95=73.063338 p99=73.139449 stdev=0.511493 min=71.68861 max=80.036522  # Perf_Sign:RSA_2048_0x0016.csv of 4 runs, 4000 samples
VerifySignature    none       ecc-p256.ecschnorr n=4000 mean=38.991357 p50=38.990779 p90=39.129581 p95=39.133357 p99=39.164101 stdev=0.2046 min=38.097856 max=46.097325  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 4 runs, 4000 samples
VerifySignature    none       ecc-p384.ecschnorr n=4000 mean=66.602472 p50=66.85531 p90=66.998497 p95=67.127228 p99=67.134371 stdev=0.490609 min=65.828165 max=73.966735  # Perf_VerifySignature:ECC_0x0004_0x001c.csv of 4 runs, 4000 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=4000 mean=38.025293 p50=37.993537 p90=38.129236 p95=38.134836 p99=38.992963 stdev=0.27126 min=37.686596 max=46.09541  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 4 runs, 4000 samples
VerifySignature    none       rsa-1024.rsassa n=4000 mean=3.998371 p50=3.997632 p90=4.112868 p95=4.118178 p99=4.28409 stdev=0.102102 min=3.374757 max=5.850634  # Perf_VerifySignature:RSA_1024_0x0014.csv of 4 runs, 4000 samples
VerifySignature    none       rsa-1024.rsapss n=4000 mean=5.991449 p50=5.997576 p90=6.10544 p95=6.120346 p99=6.168871 stdev=0.076564 min=5.249168 max=6.443948  # Perf_VerifySignature:RSA_1024_0x0016.csv of 4 runs, 4000 samples
VerifySignature    none       rsa-2048.rsassa n=4000 mean=6.71019 p50=6.602886 p90=7.141721 p95=7.398182 p99=7.610117 stdev=0.380929 min=5.994746 max=14.094559  # Perf_VerifySignature:RSA_2048_0x0014.csv of 4 runs, 4000 samples
VerifySignature    none       rsa-2048.rsapss n=4000 mean=10.452031 p50=10.369827 p90=10.995519 p95=10.999737 p99=11.033322 stdev=0.360432 min=9.934674 max=11.732734  # Perf_VerifySignature:RSA_2048_0x0016.csv of 4 runs, 4000 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=4000 mean=32.483512 p50=32.422261 p90=32.827024 p95=32.83019 p99=32.835171 stdev=0.295612 min=31.814723 max=39.704713  # Perf_ZGen:0x0003_0x0019.csv of 4 runs, 4000 samples
ZGen_2Phase        password   ecc-p384.ecdh  n=4000 mean=63.349203 p50=63.355675 p90=63.489829 p95=63.493308 p99=63.564758 stdev=0.248743 min=62.121186 max=68.82313  # Perf_ZGen:0x0004_0x0019.csv of 4 runs, 4000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=4000 mean=31.75075 p50=31.812862 p90=32.322335 p95=32.380002 p99=32.542672 stdev=0.432284 min=30.946854 max=39.344992  # Perf_ZGen:0x0010_0x0019.csv of 4 runs, 4000 samples
CreatePrimary      password   ecc-p256       derived=Create n=4000 mean=24.946464 p50=24.797918 p90=25.571832 p95=25.69443 p99=25.834857 stdev=0.560069 min=23.605495 max=35.991593  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-p384       derived=Create n=4000 mean=40.527344 p50=40.58774 p90=40.952946 p95=40.978836 p99=41.091573 stdev=0.469767 min=39.102403 max=52.213504  # derived: the figures of Create ecc-p384 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=4000 mean=40.302824 p50=40.442204 p90=40.715611 p95=40.807965 p99=40.889354 stdev=0.503358 min=38.809405 max=51.009367  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=4000 mean=10.837707 p50=10.74235 p90=11.654597 p95=11.670725 p99=11.751998 stdev=0.434693 min=10.160819 max=21.136875  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=4000 mean=730.183432 p50=652.225965 p90=1096.169167 p95=1279.143399 p99=1862.190728 stdev=392.300861 min=281.192632 max=8679.367232  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=4000 mean=3522.861045 p50=3043.75309 p90=6170.996331 p95=7373.761274 p99=10204.718933 stdev=2448.815572 min=645.705975 max=62734.716013  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=4000 mean=3.364833 p50=3.410136 p90=3.619684 p95=3.670631 p99=3.684901 stdev=0.247887 min=2.849409 max=3.746137  # derived: the figures of Hash sha256.256b (one digest)
