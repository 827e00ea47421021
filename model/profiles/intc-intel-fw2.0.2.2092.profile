tpmtrace-profile 1
name: intc-intel-fw2.0.2.2092
vendor: INTC
chip: Intel
firmware: 2.0.2.2092
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020/08/21 14:21:54
source: crocs-muni/tpmscan-dataset, 5290b0e7711f3df5 bdfa9f3a64c575ff
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: 2 runs of this chip and firmware merged: their samples pooled, min and max over all
note: not imported (failed on the chip or unusable): Sign ecc-p256.sm2 (line 247, error 02d2); Sign ecc-p256.ecschnorr (line 258, error 02d2)
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=1100 mean=158.616087 p50=105.98855 p90=240.564 p95=241.9337 p99=244.999587 stdev=64.772244 min=100.768762 max=267.405662  # Perf_Create:ECC_0x0003.csv of 2 runs, 1100 samples
Create             password   hmac           n=1100 mean=12.244512 p50=8.937662 p90=9.956363 p95=52.443 p99=53.498 stdev=11.546893 min=7.510425 max=62.274  # Perf_Create:HMAC.csv of 2 runs, 1100 samples
Create             password   rsa-1024       n=1100 mean=3510.364026 p50=3119.067837 p90=5992.879937 p95=7118.429238 p99=9781.728312 stdev=1905.763467 min=804.84685 max=15817.054862  # Perf_Create:RSA_1024.csv of 2 runs, 1100 samples
Create             password   rsa-2048       n=1100 mean=14155.626832 p50=12280.501025 p90=26768.283512 p95=33033.766513 p99=42649.923175 stdev=9590.513432 min=53.542 max=64106.781925  # Perf_Create:RSA_2048.csv of 2 runs, 1100 samples
GetRandom          none       32b            n=1100 mean=3.974786 p50=3.992025 p90=4.343837 p95=4.577487 p99=4.897437 stdev=0.419386 min=2.970337 max=8.770437  # Perf_GetRandom.csv of 2 runs, 1100 samples
HMAC               password   sha256.256b    n=1100 mean=4.340762 p50=4.227325 p90=5.048475 p95=5.171625 p99=5.3396 stdev=0.588296 min=3.244563 max=12.712813  # Perf_HMAC.csv of 2 runs, 1100 samples
Hash               none       sha1.256b      n=1100 mean=3.947857 p50=3.950113 p90=4.393975 p95=4.6845 p99=5.037812 stdev=0.600854 min=3.037125 max=12.0307  # Perf_Hash:0x0004.csv of 2 runs, 1100 samples
Hash               none       sha256.256b    n=1100 mean=4.134451 p50=4.066675 p90=4.673 p95=4.886438 p99=5.126125 stdev=0.399564 min=3.183375 max=9.1946  # Perf_Hash:0x000b.csv of 2 runs, 1100 samples
RSA_Decrypt        password   rsa-1024.null  n=1100 mean=70.229574 p50=63.4164 p90=64.393613 p95=132.298 p99=167.989 stdev=22.649512 min=62.135525 max=207.611  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 2 runs, 1100 samples
RSA_Decrypt        password   rsa-1024.rsaes n=1100 mean=71.167019 p50=65.780663 p90=66.820663 p95=122.914 p99=149.786 stdev=18.400742 min=64.559863 max=171.503  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 2 runs, 1100 samples
RSA_Decrypt        password   rsa-1024.oaep  n=1100 mean=73.135997 p50=66.854687 p90=68.017612 p95=138.213 p99=152.119 stdev=20.867599 min=65.625363 max=190.02  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 2 runs, 1100 samples
RSA_Decrypt        password   rsa-2048.null  n=1100 mean=254.308661 p50=229.923137 p90=279 p95=475.214725 p99=518.503 stdev=74.0662 min=228.669525 max=553.506  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 2 runs, 1100 samples
RSA_Decrypt        password   rsa-2048.rsaes n=1100 mean=263.346711 p50=238.7778 p90=404.42 p95=463.4699 p99=510.521 stdev=70.145857 min=237.544175 max=551.184387  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 2 runs, 1100 samples
RSA_Decrypt        password   rsa-2048.oaep  n=1100 mean=257.781277 p50=240.456088 p90=241.2919 p95=447.941 p99=519.868163 stdev=62.148303 min=239.125675 max=607.818  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 2 runs, 1100 samples
RSA_Encrypt        none       rsa-1024.null  n=1100 mean=8.784221 p50=7.850825 p90=8.858662 p95=16.573138 p99=29.162 stdev=3.965937 min=6.729375 max=52.911  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 2 runs, 1100 samples
RSA_Encrypt        none       rsa-1024.rsaes n=1100 mean=9.657932 p50=8.630025 p90=9.617 p95=18.586 p99=35.325 stdev=4.261069 min=7.539762 max=46.702  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 2 runs, 1100 samples
RSA_Encrypt        none       rsa-1024.oaep  n=1100 mean=11.404317 p50=9.649538 p90=10.601675 p95=28.029 p99=44.925 stdev=6.826205 min=8.319675 max=70.628  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 2 runs, 1100 samples
RSA_Encrypt        none       rsa-2048.null  n=1100 mean=22.462057 p50=20.972538 p90=36.150387 p95=39.905 p99=48.055312 stdev=8.145462 min=8.927988 max=70.349  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 2 runs, 1100 samples
RSA_Encrypt        none       rsa-2048.rsaes n=1100 mean=26.217075 p50=24.58535 p90=40.721 p95=47.782838 p99=55.028237 stdev=8.980415 min=11.165 max=74.819825  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 2 runs, 1100 samples
RSA_Encrypt        none       rsa-2048.oaep  n=1100 mean=30.450109 p50=37.02515 p90=47.4188 p95=55.271388 p99=66.927 stdev=17.702676 min=11.5224 max=296.5725  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 2 runs, 1100 samples
Sign               password   ecc-p256.ecdsa n=1100 mean=102.39348 p50=102.30015 p90=103.9322 p95=104.275137 p99=105.077625 stdev=1.267293 min=98.405763 max=112.99805  # Perf_Sign:ECC_0x0003_0x0018.csv of 2 runs, 1100 samples
Sign               password   rsa-1024.rsassa n=1100 mean=71.785015 p50=66.200013 p90=67.2176 p95=128.291 p99=149.3 stdev=18.936134 min=64.91985 max=188.506  # Perf_Sign:RSA_1024_0x0014.csv of 2 runs, 1100 samples
Sign               password   rsa-1024.rsapss n=1100 mean=73.248291 p50=67.108588 p90=68.0887 p95=133.212 p99=155.738 stdev=20.199151 min=65.8904 max=188.572  # Perf_Sign:RSA_1024_0x0016.csv of 2 runs, 1100 samples
Sign               password   rsa-2048.rsassa n=1100 mean=266.065512 p50=239.260588 p90=414.881925 p95=471.014888 p99=521.656 stdev=73.823037 min=238.015738 max=570.236  # Perf_Sign:RSA_2048_0x0014.csv of 2 runs, 1100 samples
Sign               password   rsa-2048.rsapss n=1100 mean=261.492099 p50=240.837275 p90=241.938337 p95=457.878 p99=515.507 stdev=66.379048 min=239.623512 max=564.084  # Perf_Sign:RSA_2048_0x0016.csv of 2 runs, 1100 samples
VerifySignature    none       ecc-p256.ecdsa n=1100 mean=62.283684 p50=41.0557 p90=94.755 p95=101.23415 p99=111.667238 stdev=24.556041 min=39.3473 max=132.352762  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 2 runs, 1100 samples
VerifySignature    none       rsa-1024.rsassa n=1100 mean=8.364549 p50=8.3284 p90=8.95855 p95=9.076988 p99=9.472887 stdev=0.481742 min=7.06145 max=13.4583  # Perf_VerifySignature:RSA_1024_0x0014.csv of 2 runs, 1100 samples
VerifySignature    none       rsa-1024.rsapss n=1100 mean=9.057934 p50=9.00315 p90=9.74615 p95=9.88975 p99=10.07695 stdev=0.649809 min=7.8753 max=18.11815  # Perf_VerifySignature:RSA_1024_0x0016.csv of 2 runs, 1100 samples
VerifySignature    none       rsa-2048.rsassa n=1100 mean=25.544963 p50=23.409688 p90=39.12455 p95=45.964 p99=55.0701 stdev=8.984174 min=10.413 max=62.96835  # Perf_VerifySignature:RSA_2048_0x0014.csv of 2 runs, 1100 samples
VerifySignature    none       rsa-2048.rsapss n=1100 mean=34.425308 p50=33.7903 p90=46.789375 p95=53.933 p99=63.272963 stdev=10.43371 min=11.310687 max=86.594875  # Perf_VerifySignature:RSA_2048_0x0016.csv of 2 runs, 1100 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=1000 mean=188.973603 p50=188.965425 p90=189.869725 p95=190.119025 p99=190.583675 stdev=0.786414 min=186.595262 max=198.430187  # Perf_ZGen:0x0003_0x0019.csv of 1 runs, 1000 samples
CreatePrimary      password   ecc-p256       derived=Create n=1100 mean=158.616087 p50=105.98855 p90=240.564 p95=241.9337 p99=244.999587 stdev=64.772244 min=100.768762 max=267.405662  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   hmac           derived=Create n=1100 mean=12.244512 p50=8.937662 p90=9.956363 p95=52.443 p99=53.498 stdev=11.546893 min=7.510425 max=62.274  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=1100 mean=3510.364026 p50=3119.067837 p90=5992.879937 p95=7118.429238 p99=9781.728312 stdev=1905.763467 min=804.84685 max=15817.054862  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=1100 mean=14155.626832 p50=12280.501025 p90=26768.283512 p95=33033.766513 p99=42649.923175 stdev=9590.513432 min=53.542 max=64106.781925  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=1100 mean=4.134451 p50=4.066675 p90=4.673 p95=4.886438 p99=5.126125 stdev=0.399564 min=3.183375 max=9.1946  # derived: the figures of Hash sha256.256b (one digest)
