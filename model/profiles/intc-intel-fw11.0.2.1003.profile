tpmtrace-profile 1
name: intc-intel-fw11.0.2.1003
vendor: INTC
chip: Intel
firmware: 11.0.2.1003
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/15 15:43:53
source: crocs-muni/tpmscan-dataset, 456fbca2f4ec1827 5fd001205ad811a1
covers: Create EncryptDecrypt GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: INVALID                  ; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 2 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=2000 mean=320.929175 p50=318.575587 p90=329.582197 p95=332.567272 p99=335.58884 stdev=5.392835 min=315.455964 max=396.170109  # Perf_Create:ECC_0x0003.csv of 2 runs, 2000 samples
Create             password   ecc-bnp256     n=2000 mean=637.285436 p50=636.456877 p90=643.471611 p95=647.970138 p99=652.5918 stdev=4.528637 min=629.562511 max=703.09692  # Perf_Create:ECC_0x0010.csv of 2 runs, 2000 samples
Create             password   hmac           n=2000 mean=9.272958 p50=9.439493 p90=9.47065 p95=9.507003 p99=9.580767 stdev=0.632349 min=8.435909 max=31.302256  # Perf_Create:HMAC.csv of 2 runs, 2000 samples
Create             password   rsa-1024       n=2000 mean=992.938052 p50=861.575673 p90=1714.569728 p95=2087.596966 p99=2983.588208 stdev=574.000082 min=191.659497 max=4300.570289  # Perf_Create:RSA_1024.csv of 2 runs, 2000 samples
Create             password   rsa-2048       n=2000 mean=5070.894287 p50=4372.326421 p90=9457.076926 p95=11152.440349 p99=15352.290976 stdev=3190.836368 min=15.449069 max=23307.612526  # Perf_Create:RSA_2048.csv of 2 runs, 2000 samples
Create             password   aes-128        n=2000 mean=8.490747 p50=8.426895 p90=8.50318 p95=9.044868 p99=9.426674 stdev=0.228919 min=8.283607 max=10.45448  # Perf_Create:SYMCIPHER_0x0006_128.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.ctr.decrypt.256b n=2000 mean=2.005859 p50=1.874372 p90=2.548905 p95=2.631333 p99=2.711993 stdev=0.319448 min=1.744721 max=3.99024  # Perf_EncryptDecrypt:0x0006_128_0x0040_decrypt.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.ctr.encrypt.256b n=2000 mean=2.004572 p50=1.874025 p90=2.543842 p95=2.625427 p99=2.693642 stdev=0.317815 min=1.760904 max=4.179935  # Perf_EncryptDecrypt:0x0006_128_0x0040_encrypt.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.ofb.decrypt.256b n=2000 mean=4.011544 p50=3.995052 p90=4.032446 p95=4.060057 p99=4.198012 stdev=0.388399 min=3.685564 max=20.10191  # Perf_EncryptDecrypt:0x0006_128_0x0041_decrypt.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.ofb.encrypt.256b n=2000 mean=4.004962 p50=3.994885 p90=4.03011 p95=4.057542 p99=4.119396 stdev=0.358915 min=3.682105 max=19.778747  # Perf_EncryptDecrypt:0x0006_128_0x0041_encrypt.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.cbc.decrypt.256b n=2000 mean=2.010208 p50=1.874017 p90=2.55201 p95=2.631601 p99=2.70777 stdev=0.453984 min=1.760814 max=16.754382  # Perf_EncryptDecrypt:0x0006_128_0x0042_decrypt.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.cbc.encrypt.256b n=2000 mean=2.081302 p50=1.874144 p90=2.55696 p95=2.6311 p99=2.850381 stdev=3.290828 min=1.706628 max=148.463564  # Perf_EncryptDecrypt:0x0006_128_0x0042_encrypt.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.cfb.decrypt.256b n=2000 mean=3.999505 p50=3.995007 p90=4.035986 p95=4.063193 p99=4.201598 stdev=0.081851 min=3.659444 max=5.026496  # Perf_EncryptDecrypt:0x0006_128_0x0043_decrypt.csv of 2 runs, 2000 samples
EncryptDecrypt     password   aes-128.cfb.encrypt.256b n=2000 mean=4.009958 p50=3.995054 p90=4.032125 p95=4.064797 p99=4.185747 stdev=0.385556 min=3.639314 max=20.087328  # Perf_EncryptDecrypt:0x0006_128_0x0043_encrypt.csv of 2 runs, 2000 samples
GetRandom          none       32b            n=2000 mean=1.500209 p50=1.504237 p90=1.585376 p95=1.588977 p99=1.634193 stdev=0.091252 min=1.263902 max=2.484868  # Perf_GetRandom.csv of 2 runs, 2000 samples
HMAC               password   sha256.256b    n=2000 mean=2.520164 p50=2.650402 p90=2.717764 p95=2.726846 p99=2.832427 stdev=0.226192 min=2.205268 max=4.849625  # Perf_HMAC.csv of 2 runs, 2000 samples
Hash               none       sha1.256b      n=2000 mean=1.96022 p50=1.602752 p90=2.396 p95=2.421893 p99=2.47905 stdev=0.533113 min=1.404297 max=17.312178  # Perf_Hash:0x0004.csv of 2 runs, 2000 samples
Hash               none       sha256.256b    n=2000 mean=1.958896 p50=1.619644 p90=2.383061 p95=2.40661 p99=2.477276 stdev=0.389714 min=1.441982 max=2.831591  # Perf_Hash:0x000b.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.null  n=2000 mean=33.34236 p50=32.991778 p90=33.105564 p95=33.885198 p99=53.978639 stdev=2.419876 min=32.882619 max=54.979527  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=2000 mean=33.343711 p50=32.99099 p90=33.192224 p95=33.817242 p99=53.98272 stdev=2.437787 min=32.827998 max=56.089859  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=2000 mean=35.589025 p50=34.992915 p90=35.981556 p95=36.002025 p99=55.990422 stdev=3.292179 min=34.779971 max=98.996124  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.null  n=2000 mean=229.939185 p50=228.9909 p90=229.035007 p95=229.479406 p99=248.996807 stdev=5.020366 min=228.196369 max=329.779668  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=2000 mean=228.469536 p50=227.99546 p90=228.876174 p95=228.991175 p99=248.784688 stdev=2.529389 min=227.87576 max=250.848126  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 2 runs, 2000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=2000 mean=232.627038 p50=231.990769 p90=232.032918 p95=232.192689 p99=252.017007 stdev=3.414754 min=231.683635 max=255.454919  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.null  n=2000 mean=4.371994 p50=3.895967 p90=4.3753 p95=4.403395 p99=25.216427 stdev=2.821173 min=3.721555 max=27.280064  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=2000 mean=4.395478 p50=3.896789 p90=4.402342 p95=4.891792 p99=25.18905 stdev=2.725549 min=3.821587 max=26.425086  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=2000 mean=6.469696 p50=5.995546 p90=6.035062 p95=6.07876 p99=25.01782 stdev=3.062794 min=5.683439 max=41.247682  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.null  n=2000 mean=10.433722 p50=9.995146 p90=10.032629 p95=10.061581 p99=31.061562 stdev=3.015632 min=9.820331 max=33.052904  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=2000 mean=11.817422 p50=10.994807 p90=11.024336 p95=11.056748 p99=31.042355 stdev=4.083416 min=10.016563 max=45.182746  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 2 runs, 2000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=2000 mean=14.643063 p50=13.991987 p90=14.04054 p95=14.079628 p99=31.032102 stdev=3.312685 min=13.688347 max=46.213712  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecdsa n=2000 mean=136.448653 p50=135.990457 p90=136.046871 p95=136.956331 p99=156.979561 stdev=3.125355 min=133.885221 max=158.995826  # Perf_Sign:ECC_0x0003_0x0018.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecdaa n=2000 mean=3.332089 p50=2.744693 p90=3.769489 p95=3.849197 p99=23.087581 stdev=3.025031 min=2.703024 max=26.020727  # Perf_Sign:ECC_0x0003_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-p256.ecschnorr n=2000 mean=137.006615 p50=136.053981 p90=137.010926 p95=138.979281 p99=156.998998 stdev=3.446683 min=132.972478 max=172.668655  # Perf_Sign:ECC_0x0003_0x001c.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecdsa n=2000 mean=272.755652 p50=272.878002 p90=273.012859 p95=273.997766 p99=292.968065 stdev=2.864811 min=266.935752 max=330.488555  # Perf_Sign:ECC_0x0010_0x0018.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecdaa n=2000 mean=2.950732 p50=2.744799 p90=3.754668 p95=3.827104 p99=4.871926 stdev=1.142128 min=2.712682 max=36.988065  # Perf_Sign:ECC_0x0010_0x001a.csv of 2 runs, 2000 samples
Sign               password   ecc-bnp256.ecschnorr n=2000 mean=272.625163 p50=272.976309 p90=273.017146 p95=273.100227 p99=275.992411 stdev=1.476655 min=266.876335 max=309.679959  # Perf_Sign:ECC_0x0010_0x001c.csv of 2 runs, 2000 samples
Sign               password   rsa-1024.rsassa n=2000 mean=33.009722 p50=32.990341 p90=33.015165 p95=33.039306 p99=33.990141 stdev=0.163736 min=32.840272 max=36.476498  # Perf_Sign:RSA_1024_0x0014.csv of 2 runs, 2000 samples
Sign               password   rsa-1024.rsapss n=2000 mean=34.958139 p50=34.989442 p90=35.009836 p95=35.026932 p99=35.067017 stdev=0.165036 min=34.021826 max=35.81863  # Perf_Sign:RSA_1024_0x0016.csv of 2 runs, 2000 samples
Sign               password   rsa-2048.rsassa n=2000 mean=229.768001 p50=228.99081 p90=229.046857 p95=229.798723 p99=248.994385 stdev=3.780464 min=228.304927 max=250.993606  # Perf_Sign:RSA_2048_0x0014.csv of 2 runs, 2000 samples
Sign               password   rsa-2048.rsapss n=2000 mean=231.556348 p50=230.990894 p90=231.058512 p95=231.994759 p99=248.993365 stdev=3.027895 min=230.566008 max=264.455955  # Perf_Sign:RSA_2048_0x0016.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-p256.ecdsa n=2000 mean=52.500691 p50=52.875943 p90=53.120269 p95=53.990539 p99=71.989707 stdev=3.080453 min=50.65451 max=74.991581  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-p256.ecschnorr n=2000 mean=183.557258 p50=182.990909 p90=183.042099 p95=184.954557 p99=203.988823 stdev=3.173015 min=181.990838 max=216.511685  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 2 runs, 2000 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=2000 mean=365.538304 p50=364.988884 p90=366.021017 p95=368.171104 p99=385.980641 stdev=3.723309 min=362.945579 max=428.34106  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-1024.rsassa n=2000 mean=4.006826 p50=3.870269 p90=4.254066 p95=4.358965 p99=4.581713 stdev=0.259358 min=3.592617 max=5.973784  # Perf_VerifySignature:RSA_1024_0x0014.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-1024.rsapss n=2000 mean=5.062755 p50=4.874998 p90=5.285687 p95=5.815743 p99=5.987532 stdev=0.284773 min=4.771564 max=6.134719  # Perf_VerifySignature:RSA_1024_0x0016.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-2048.rsassa n=2000 mean=10.380208 p50=9.995172 p90=10.022221 p95=10.06194 p99=31.013268 stdev=2.825288 min=9.600131 max=34.079041  # Perf_VerifySignature:RSA_2048_0x0014.csv of 2 runs, 2000 samples
VerifySignature    none       rsa-2048.rsapss n=2000 mean=12.375235 p50=11.995675 p90=12.094813 p95=12.995965 p99=33.022653 stdev=2.551134 min=11.863042 max=34.979527  # Perf_VerifySignature:RSA_2048_0x0016.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=2000 mean=95.556022 p50=95.077339 p90=95.121658 p95=95.680879 p99=116.061626 stdev=3.117437 min=93.965352 max=120.827528  # Perf_ZGen:0x0003_0x0019.csv of 2 runs, 2000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=2000 mean=186.588501 p50=186.077217 p90=186.141104 p95=188.080323 p99=207.076341 stdev=3.466255 min=182.673592 max=241.157682  # Perf_ZGen:0x0010_0x0019.csv of 2 runs, 2000 samples
CreatePrimary      password   ecc-p256       derived=Create n=2000 mean=320.929175 p50=318.575587 p90=329.582197 p95=332.567272 p99=335.58884 stdev=5.392835 min=315.455964 max=396.170109  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=2000 mean=637.285436 p50=636.456877 p90=643.471611 p95=647.970138 p99=652.5918 stdev=4.528637 min=629.562511 max=703.09692  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=2000 mean=9.272958 p50=9.439493 p90=9.47065 p95=9.507003 p99=9.580767 stdev=0.632349 min=8.435909 max=31.302256  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=2000 mean=992.938052 p50=861.575673 p90=1714.569728 p95=2087.596966 p99=2983.588208 stdev=574.000082 min=191.659497 max=4300.570289  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=2000 mean=5070.894287 p50=4372.326421 p90=9457.076926 p95=11152.440349 p99=15352.290976 stdev=3190.836368 min=15.449069 max=23307.612526  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=2000 mean=8.490747 p50=8.426895 p90=8.50318 p95=9.044868 p99=9.426674 stdev=0.228919 min=8.283607 max=10.45448  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=2000 mean=1.958896 p50=1.619644 p90=2.383061 p95=2.40661 p99=2.477276 stdev=0.389714 min=1.441982 max=2.831591  # derived: the figures of Hash sha256.256b (one digest)
