tpmtrace-profile 1
name: ifx-slb9670-fw7.85.17.51968
vendor: IFX
chip: SLB9670
firmware: 7.85.17.51968
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/16 08:53:54
source: crocs-muni/tpmscan-dataset, 08836af27dda9f32 54e216f55af9dce9 57dac75a27d6f427 5a297ca10e7b5629 768d20d1e8288b3a ad592e13900c2dff b9a15577616f11cf
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: ArcherCity; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 7 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=7000 mean=218.003106 p50=218.506098 p90=219.79894 p95=219.974259 p99=220.036092 stdev=1.545319 min=212.492793 max=221.887592  # Perf_Create:ECC_0x0003.csv of 7 runs, 7000 samples
Create             password   ecc-bnp256     n=7000 mean=216.312933 p50=216.823069 p90=218.034242 p95=218.0758 p99=218.909266 stdev=1.565036 min=210.659564 max=220.043551  # Perf_Create:ECC_0x0010.csv of 7 runs, 7000 samples
Create             password   hmac           n=7000 mean=55.679594 p50=56.044181 p90=57.235273 p95=57.257139 p99=57.290196 stdev=1.760764 min=50.45614 max=57.7208  # Perf_Create:HMAC.csv of 7 runs, 7000 samples
Create             password   rsa-1024       n=7000 mean=1879.733485 p50=1629.642885 p90=3334.990734 p95=4061.605228 p99=5640.97623 stdev=1120.364898 min=307.566684 max=9022.06682  # Perf_Create:RSA_1024.csv of 7 runs, 7000 samples
Create             password   rsa-2048       n=7000 mean=10559.71574 p50=9034.318648 p90=19273.091493 p95=23293.45673 p99=32269.112512 stdev=6590.391187 min=1386.201957 max=53259.649787  # Perf_Create:RSA_2048.csv of 7 runs, 7000 samples
Create             password   aes-128        n=7000 mean=53.384186 p50=53.808463 p90=54.652876 p95=54.671086 p99=54.742147 stdev=1.675605 min=48.366299 max=55.929751  # Perf_Create:SYMCIPHER_0x0006_128.csv of 7 runs, 7000 samples
GetRandom          none       32b            n=7000 mean=4.211824 p50=4.049455 p90=4.670829 p95=4.685264 p99=4.717922 stdev=0.314421 min=2.575623 max=5.985114  # Perf_GetRandom.csv of 7 runs, 7000 samples
HMAC               password   sha256.256b    n=7000 mean=14.36736 p50=14.307378 p90=15.00733 p95=15.020766 p99=15.338553 stdev=0.595457 min=12.30249 max=17.029739  # Perf_HMAC.csv of 7 runs, 7000 samples
Hash               none       sha1.256b      n=7000 mean=5.333228 p50=5.346018 p90=5.998993 p95=6.015527 p99=6.224065 stdev=0.512731 min=3.48574 max=8.116776  # Perf_Hash:0x0004.csv of 7 runs, 7000 samples
Hash               none       sha256.256b    n=7000 mean=5.394115 p50=5.416245 p90=5.823826 p95=5.956723 p99=6.373907 stdev=0.476845 min=3.579683 max=12.688356  # Perf_Hash:0x000b.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-1024.null  n=7000 mean=90.172879 p50=90.003879 p90=91.042128 p95=91.989032 p99=92.983865 stdev=0.952358 min=86.609388 max=97.674892  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=7000 mean=89.095169 p50=88.999723 p90=90.024083 p95=90.973922 p99=91.962166 stdev=0.926206 min=85.982309 max=97.025527  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=7000 mean=92.802254 p50=92.977989 p90=94.000597 p95=94.059875 p99=95.070012 stdev=0.964551 min=89.951832 max=100.931579  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-2048.null  n=7000 mean=189.030836 p50=189.014542 p90=191.021034 p95=191.956249 p99=192.991704 stdev=1.770737 min=182.075149 max=196.921981  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=7000 mean=186.284313 p50=186.016208 p90=188.018372 p95=188.978289 p99=189.995254 stdev=1.490671 min=181.899571 max=196.034687  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=7000 mean=192.185447 p50=192.003557 p90=194.000955 p95=194.854343 p99=195.943473 stdev=1.457296 min=187.890974 max=201.662663  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-1024.null  n=7000 mean=8.503366 p50=8.647677 p90=9.396084 p95=9.413663 p99=9.45031 stdev=0.875083 min=5.545817 max=10.671673  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=7000 mean=9.88706 p50=10.037517 p90=10.670829 p95=10.695624 p99=11.339208 stdev=0.839983 min=7.541989 max=12.765098  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=7000 mean=12.55501 p50=12.89581 p90=13.26255 p95=13.276428 p99=13.321361 stdev=0.82256 min=9.709821 max=14.797418  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-2048.null  n=7000 mean=12.542723 p50=13.01373 p90=13.703226 p95=13.722107 p99=13.759676 stdev=1.309584 min=8.865837 max=15.785664  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=7000 mean=17.77836 p50=18.072617 p90=19.013362 p95=19.027864 p99=19.06841 stdev=1.399265 min=13.817501 max=22.959666  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 7 runs, 7000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=7000 mean=19.245833 p50=19.925949 p90=20.049227 p95=20.111284 p99=20.204897 stdev=1.257416 min=15.278052 max=22.109173  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 7 runs, 7000 samples
Sign               password   ecc-p256.ecdsa n=7000 mean=71.106351 p50=70.999798 p90=71.944625 p95=72.008171 p99=72.115744 stdev=0.408826 min=69.830867 max=79.329772  # Perf_Sign:ECC_0x0003_0x0018.csv of 7 runs, 7000 samples
Sign               password   ecc-p256.ecdaa n=7000 mean=41.099207 p50=40.871673 p90=41.802193 p95=41.814732 p99=41.830595 stdev=0.541642 min=39.410771 max=48.976613  # Perf_Sign:ECC_0x0003_0x001a.csv of 7 runs, 7000 samples
Sign               password   ecc-bnp256.ecdaa n=7000 mean=41.16319 p50=40.894837 p90=41.813411 p95=41.818758 p99=41.919108 stdev=0.558159 min=39.598848 max=48.961649  # Perf_Sign:ECC_0x0010_0x001a.csv of 7 runs, 7000 samples
Sign               password   rsa-1024.rsassa n=7000 mean=89.507184 p50=89.831458 p90=90.998124 p95=91.039598 p99=92.024544 stdev=1.096676 min=85.702668 max=95.124294  # Perf_Sign:RSA_1024_0x0014.csv of 7 runs, 7000 samples
Sign               password   rsa-1024.rsapss n=7000 mean=95.164578 p50=95.005374 p90=96.052584 p95=96.992831 p99=97.980994 stdev=0.982247 min=91.978282 max=102.034936  # Perf_Sign:RSA_1024_0x0016.csv of 7 runs, 7000 samples
Sign               password   rsa-2048.rsassa n=7000 mean=187.451682 p50=187.265526 p90=189.124066 p95=190.004034 p99=191.062519 stdev=1.620322 min=180.968421 max=197.044103  # Perf_Sign:RSA_2048_0x0014.csv of 7 runs, 7000 samples
Sign               password   rsa-2048.rsapss n=7000 mean=194.890971 p50=194.980371 p90=196.955689 p95=197.027993 p99=198.112124 stdev=1.417817 min=189.999409 max=203.921032  # Perf_Sign:RSA_2048_0x0016.csv of 7 runs, 7000 samples
VerifySignature    none       ecc-p256.ecdsa n=7000 mean=106.103744 p50=105.999626 p90=106.999407 p95=107.012125 p99=107.614268 stdev=0.689219 min=98.906659 max=116.010083  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-1024.rsassa n=7000 mean=7.658404 p50=7.637859 p90=8.001524 p95=8.012425 p99=8.157156 stdev=0.40992 min=5.885359 max=10.029612  # Perf_VerifySignature:RSA_1024_0x0014.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-1024.rsapss n=7000 mean=15.148496 p50=15.00116 p90=16.001555 p95=16.013945 p99=16.029499 stdev=0.743157 min=13.258185 max=18.125158  # Perf_VerifySignature:RSA_1024_0x0016.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-2048.rsassa n=7000 mean=11.44759 p50=11.030998 p90=12.984457 p95=13.000072 p99=13.015742 stdev=0.890816 min=8.624269 max=14.028627  # Perf_VerifySignature:RSA_2048_0x0014.csv of 7 runs, 7000 samples
VerifySignature    none       rsa-2048.rsapss n=7000 mean=21.939364 p50=21.985891 p90=23.020586 p95=23.061248 p99=24.00324 stdev=1.101255 min=19.749735 max=28.753381  # Perf_VerifySignature:RSA_2048_0x0016.csv of 7 runs, 7000 samples
CreatePrimary      password   ecc-p256       derived=Create n=7000 mean=218.003106 p50=218.506098 p90=219.79894 p95=219.974259 p99=220.036092 stdev=1.545319 min=212.492793 max=221.887592  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=7000 mean=216.312933 p50=216.823069 p90=218.034242 p95=218.0758 p99=218.909266 stdev=1.565036 min=210.659564 max=220.043551  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=7000 mean=55.679594 p50=56.044181 p90=57.235273 p95=57.257139 p99=57.290196 stdev=1.760764 min=50.45614 max=57.7208  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=7000 mean=1879.733485 p50=1629.642885 p90=3334.990734 p95=4061.605228 p99=5640.97623 stdev=1120.364898 min=307.566684 max=9022.06682  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=7000 mean=10559.71574 p50=9034.318648 p90=19273.091493 p95=23293.45673 p99=32269.112512 stdev=6590.391187 min=1386.201957 max=53259.649787  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=7000 mean=53.384186 p50=53.808463 p90=54.652876 p95=54.671086 p99=54.742147 stdev=1.675605 min=48.366299 max=55.929751  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=7000 mean=5.394115 p50=5.416245 p90=5.823826 p95=5.956723 p99=6.373907 stdev=0.476845 min=3.579683 max=12.688356  # derived: the figures of Hash sha256.256b (one digest)
