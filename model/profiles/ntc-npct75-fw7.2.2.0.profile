tpmtrace-profile 1
name: ntc-npct75-fw7.2.2.0
vendor: NTC
chip: NPCT75x"!!4rls
firmware: 7.2.2.0
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/16 06:20:21
source: crocs-muni/tpmscan-dataset, 2f83197874779d62 facaf45349ab8c41
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: ThinkSystem ST250 V2; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 2 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=2000 mean=75.540268 p50=75.524194 p90=76.482137 p95=76.614067 p99=76.781197 stdev=0.666529 min=73.974862 max=77.054555  # Perf_Create:ECC_0x0003.csv of 2 runs, 2000 samples
Create             password   ecc-p384       n=2000 mean=143.670101 p50=143.605542 p90=144.710641 p95=144.834748 p99=145.028698 stdev=0.75146 min=142.140083 max=145.496215  # Perf_Create:ECC_0x0004.csv of 2 runs, 2000 samples
Create             password   ecc-bnp256     n=2000 mean=74.258674 p50=74.125761 p90=75.044245 p95=75.196358 p99=75.394358 stdev=0.584732 min=72.843563 max=75.905364  # Perf_Create:ECC_0x0010.csv of 2 runs, 2000 samples
Create             password   hmac           n=2000 mean=8.091908 p50=8.290858 p90=8.970763 p95=9.142014 p99=9.331912 stdev=0.68711 min=6.993812 max=9.937017  # Perf_Create:HMAC.csv of 2 runs, 2000 samples
Create             password   rsa-1024       n=2000 mean=854.984431 p50=753.053251 p90=1318.808885 p95=1528.494116 p99=2333.147299 stdev=473.511938 min=311.045147 max=9251.499002  # Perf_Create:RSA_1024.csv of 2 runs, 2000 samples
Create             password   rsa-2048       n=2000 mean=3723.620984 p50=3235.011139 p90=6569.228072 p95=7678.203144 p99=10291.203541 stdev=2257.242407 min=689.112461 max=38477.928965  # Perf_Create:RSA_2048.csv of 2 runs, 2000 samples
Create             password   aes-128        n=2000 mean=8.114038 p50=8.22402 p90=8.93682 p95=9.062115 p99=9.255785 stdev=0.608439 min=6.945378 max=9.511544  # Perf_Create:SYMCIPHER_0x0006_128.csv of 2 runs, 2000 samples
Create             password   aes-256        n=2000 mean=8.129885 p50=8.336115 p90=8.996395 p95=9.172605 p99=9.417607 stdev=0.704867 min=6.982538 max=15.137259  # Perf_Create:SYMCIPHER_0x0006_256.csv of 2 runs, 2000 samples
GetRandom          none       32b            n=2000 mean=2.756531 p50=2.822526 p90=3.072807 p95=3.164229 p99=3.365022 stdev=0.337037 min=1.77341 max=9.16115  # Perf_GetRandom.csv of 2 runs, 2000 samples
HMAC               password   sha256.256b    n=2000 mean=3.806821 p50=3.765492 p90=4.438693 p95=4.444839 p99=4.471727 stdev=0.497405 min=3.112416 max=4.710585  # Perf_HMAC.csv of 2 runs, 2000 samples
Hash               none       sha1.256b      n=2000 mean=3.663223 p50=3.503245 p90=4.011822 p95=4.046953 p99=4.292165 stdev=0.346075 min=2.961479 max=4.485696  # Perf_Hash:0x0004.csv of 2 runs, 2000 samples
Hash               none       sha256.256b    n=2000 mean=3.680275 p50=3.556667 p90=4.037106 p95=4.241182 p99=4.376603 stdev=0.369778 min=3.000242 max=4.902697  # Perf_Hash:0x000b.csv of 2 runs, 2000 samples
Hash               none       sha384.256b    n=2000 mean=3.825826 p50=3.565933 p90=4.450635 p95=4.458946 p99=4.531162 stdev=0.515348 min=3.130894 max=4.848521  # Perf_Hash:0x000c.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.null  n=2000 mean=19.32117 p50=19.294414 p90=20.001494 p95=20.166669 p99=20.292263 stdev=0.53135 min=18.42363 max=20.728892  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=2000 mean=19.722164 p50=19.625097 p90=20.186714 p95=20.344206 p99=20.554288 stdev=0.348988 min=19.082802 max=26.114563  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=2000 mean=20.782185 p50=20.649691 p90=21.326733 p95=21.487787 p99=21.667837 stdev=0.365141 min=20.186815 max=22.032688  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.null  n=2000 mean=67.764732 p50=67.965063 p90=68.615355 p95=68.82411 p99=69.051374 stdev=0.676335 min=66.843143 max=74.503813  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=2000 mean=70.02023 p50=69.998126 p90=70.615539 p95=70.794822 p99=71.004276 stdev=0.493186 min=68.833621 max=76.747324  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=2000 mean=72.136298 p50=72.007942 p90=72.727749 p95=72.93399 p99=73.179343 stdev=0.458626 min=70.98355 max=77.778112  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.null  n=2000 mean=4.41367 p50=4.364327 p90=4.957683 p95=4.977867 p99=5.09101 stdev=0.433037 min=3.703307 max=5.399779  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=2000 mean=4.439943 p50=4.489118 p90=4.981429 p95=4.996934 p99=5.182782 stdev=0.456311 min=3.689692 max=5.457327  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=2000 mean=5.821931 p50=5.990496 p90=6.031772 p95=6.116782 p99=6.593296 stdev=0.398873 min=4.982437 max=7.153353  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.null  n=2000 mean=7.145868 p50=7.266287 p90=7.739321 p95=7.904846 p99=8.110389 stdev=0.504424 min=6.158685 max=8.305874  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=2000 mean=8.147791 p50=7.991301 p90=8.713747 p95=8.795671 p99=8.906369 stdev=0.470629 min=7.15844 max=14.525659  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=2000 mean=10.055597 p50=9.991835 p90=10.634034 p95=10.834548 p99=10.93449 stdev=0.361658 min=9.147733 max=11.050427  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecdsa n=2000 mean=20.124866 p50=20.001554 p90=20.516505 p95=20.704726 p99=20.988771 stdev=0.263335 min=19.665992 max=21.379324  # Perf_Sign:ECC_0x0003_0x0018.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecdaa n=2000 mean=5.24518 p50=5.099252 p90=5.688084 p95=5.713785 p99=5.826508 stdev=0.337749 min=4.540801 max=10.373874  # Perf_Sign:ECC_0x0003_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecschnorr n=2000 mean=51.978063 p50=51.996771 p90=52.32369 p95=52.471962 p99=52.619677 stdev=0.337333 min=50.860743 max=58.655639  # Perf_Sign:ECC_0x0003_0x001c.csv of 2 runs, 2000 samples
Sign               password   ecc-p384.ecdsa n=2000 mean=37.593917 p50=37.672735 p90=38.306335 p95=38.4493 p99=38.652678 stdev=0.555289 min=36.839365 max=39.326018  # Perf_Sign:ECC_0x0004_0x0018.csv of 2 runs, 2000 samples
Sign               password   ecc-p384.ecdaa n=2000 mean=5.325961 p50=5.145975 p90=5.877004 p95=5.902426 p99=6.033588 stdev=0.377128 min=4.597023 max=6.535887  # Perf_Sign:ECC_0x0004_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-p384.ecschnorr n=2000 mean=94.548746 p50=94.568723 p90=95.257987 p95=95.409053 p99=95.606005 stdev=0.551352 min=93.837115 max=100.298572  # Perf_Sign:ECC_0x0004_0x001c.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecdsa n=2000 mean=20.050428 p50=19.998469 p90=20.375075 p95=20.492618 p99=20.656466 stdev=0.25852 min=19.160402 max=25.741819  # Perf_Sign:ECC_0x0010_0x0018.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecdaa n=2000 mean=5.253936 p50=5.09217 p90=5.705823 p95=5.741093 p99=5.8659 stdev=0.340435 min=4.48395 max=6.157067  # Perf_Sign:ECC_0x0010_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecschnorr n=2000 mean=50.895691 p50=50.992956 p90=51.242477 p95=51.419804 p99=51.609143 stdev=0.39174 min=49.873477 max=56.932376  # Perf_Sign:ECC_0x0010_0x001c.csv of 2 runs, 2000 samples
Sign               password   rsa-1024.rsassa n=2000 mean=21.210678 p50=21.106638 p90=21.773927 p95=21.901736 p99=22.052524 stdev=0.340665 min=20.394054 max=22.477926  # Perf_Sign:RSA_1024_0x0014.csv of 2 runs, 2000 samples
Sign               password   rsa-1024.rsapss n=2000 mean=23.403536 p50=23.150526 p90=24.036644 p95=24.195044 p99=24.366994 stdev=0.46593 min=22.791674 max=24.632879  # Perf_Sign:RSA_1024_0x0016.csv of 2 runs, 2000 samples
Sign               password   rsa-2048.rsassa n=2000 mean=74.070466 p50=73.999709 p90=74.537127 p95=74.693012 p99=74.862727 stdev=0.362286 min=72.990596 max=79.756784  # Perf_Sign:RSA_2048_0x0014.csv of 2 runs, 2000 samples
Sign               password   rsa-2048.rsapss n=2000 mean=78.438711 p50=78.240321 p90=79.165369 p95=79.289966 p99=79.527356 stdev=0.515028 min=77.561383 max=84.355833  # Perf_Sign:RSA_2048_0x0016.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-p256.ecschnorr n=2000 mean=37.043972 p50=36.998477 p90=37.473059 p95=37.6353 p99=37.826246 stdev=0.323017 min=36.105659 max=38.061821  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-p384.ecschnorr n=2000 mean=64.212109 p50=64.109915 p90=64.790637 p95=64.917259 p99=65.05764 stdev=0.369765 min=63.568624 max=69.979983  # Perf_VerifySignature:ECC_0x0004_0x001c.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=2000 mean=36.295254 p50=36.11625 p90=36.978093 p95=37.015808 p99=37.251801 stdev=0.417041 min=35.645941 max=41.967904  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-1024.rsassa n=2000 mean=4.336036 p50=4.310325 p90=4.80047 p95=4.813042 p99=4.878484 stdev=0.363345 min=3.8397 max=5.249899  # Perf_VerifySignature:RSA_1024_0x0014.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-1024.rsapss n=2000 mean=5.442532 p50=5.476324 p90=5.869111 p95=5.996025 p99=6.122386 stdev=0.408912 min=4.821787 max=6.578979  # Perf_VerifySignature:RSA_1024_0x0016.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-2048.rsassa n=2000 mean=7.055045 p50=7.28228 p90=7.55948 p95=7.85854 p99=8.146846 stdev=0.544371 min=6.13485 max=8.88423  # Perf_VerifySignature:RSA_2048_0x0014.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-2048.rsapss n=2000 mean=10.023263 p50=10.088992 p90=10.737398 p95=10.924223 p99=11.168738 stdev=0.566929 min=9.158046 max=11.357938  # Perf_VerifySignature:RSA_2048_0x0016.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=2000 mean=31.606292 p50=31.38716 p90=32.389242 p95=32.441553 p99=32.706391 stdev=0.549116 min=30.840062 max=33.065027  # Perf_ZGen:0x0003_0x0019.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-p384.ecdh  n=2000 mean=62.82315 p50=62.55802 p90=63.541176 p95=63.648662 p99=63.915735 stdev=0.487998 min=61.947015 max=66.837405  # Perf_ZGen:0x0004_0x0019.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=2000 mean=30.791447 p50=30.996537 p90=31.638169 p95=31.811446 p99=32.031375 stdev=0.656219 min=29.710995 max=32.469039  # Perf_ZGen:0x0010_0x0019.csv of 2 runs, 2000 samples
CreatePrimary      password   ecc-p256       derived=Create n=2000 mean=75.540268 p50=75.524194 p90=76.482137 p95=76.614067 p99=76.781197 stdev=0.666529 min=73.974862 max=77.054555  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-p384       derived=Create n=2000 mean=143.670101 p50=143.605542 p90=144.710641 p95=144.834748 p99=145.028698 stdev=0.75146 min=142.140083 max=145.496215  # derived: the figures of Create ecc-p384 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=2000 mean=74.258674 p50=74.125761 p90=75.044245 p95=75.196358 p99=75.394358 stdev=0.584732 min=72.843563 max=75.905364  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=2000 mean=8.091908 p50=8.290858 p90=8.970763 p95=9.142014 p99=9.331912 stdev=0.68711 min=6.993812 max=9.937017  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=2000 mean=854.984431 p50=753.053251 p90=1318.808885 p95=1528.494116 p99=2333.147299 stdev=473.511938 min=311.045147 max=9251.499002  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=2000 mean=3723.620984 p50=3235.011139 p90=6569.228072 p95=7678.203144 p99=10291.203541 stdev=2257.242407 min=689.112461 max=38477.928965  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=2000 mean=8.114038 p50=8.22402 p90=8.93682 p95=9.062115 p99=9.255785 stdev=0.608439 min=6.945378 max=9.511544  # derived: the figures of Create aes-128 (same key type)
CreatePrimary      password   aes-256        derived=Create n=2000 mean=8.129885 p50=8.336115 p90=8.996395 p95=9.172605 p99=9.417607 stdev=0.704867 min=6.982538 max=15.137259  # derived: the figures of Create aes-256 (same key type)
PCR_Extend         password   -              derived=Hash n=2000 mean=3.680275 p50=3.556667 p90=4.037106 p95=4.241182 p99=4.376603 stdev=0.369778 min=3.000242 max=4.902697  # derived: the figures of Hash sha256.256b (one digest)
