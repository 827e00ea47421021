tpmtrace-profile 1
name: ifx-slb9665-fw5.61.10.57600
vendor: IFX
chip: SLB9665
firmware: 5.61.10.57600
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/01/12 20:00:39
source: crocs-muni/tpmscan-dataset, aed80d27bb90391b
covers: Create GetRandom HMAC Hash RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: System Product Name; Linux 0c1c9369-19e0-4718-8322-525c2bebcc67 5.15.0-57-generic #63-Ubuntu SMP Thu Nov 24 13:43:17 UTC 2022 x86_64 x86_64 x86_64 GNU/Linux
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=1000 mean=344.517064 p50=344.581 p90=345.598 p95=345.788 p99=346.876 stdev=1.017466 min=337.77 max=347.731  # Perf_Create:ECC_0x0003.csv, 1000 samples (performance.yaml line 14)
Create             password   ecc-bnp256     n=1000 mean=344.484105 p50=344.651 p90=345.632 p95=345.812 p99=346.723 stdev=1.122821 min=332.054 max=347.937  # Perf_Create:ECC_0x0010.csv, 1000 samples (performance.yaml line 24)
Create             password   hmac           n=1000 mean=294.537517 p50=294.684 p90=295.747 p95=295.931 p99=296.6 stdev=1.156786 min=285.983 max=297.633  # Perf_Create:HMAC.csv, 1000 samples (performance.yaml line 34)
Create             password   rsa-1024       n=1000 mean=1062.411447 p50=975.773 p90=1628.02 p95=1962.693 p99=2514.23 stdev=433.617336 min=455.938 max=3197.837  # Perf_Create:RSA_1024.csv, 1000 samples (performance.yaml line 44)
Create             password   rsa-2048       n=1000 mean=7066.486906 p50=6206.309 p90=12475.86 p95=14786.687 p99=20231.309 stdev=4058.864951 min=1338.822 max=26713.604  # Perf_Create:RSA_2048.csv, 1000 samples (performance.yaml line 54)
Create             password   aes-128        n=1000 mean=290.501419 p50=290.677 p90=291.765 p95=291.938 p99=292.805 stdev=1.398101 min=276.978 max=308.567  # Perf_Create:SYMCIPHER_0x0006_128.csv, 1000 samples (performance.yaml line 64)
GetRandom          none       32b            n=1000 mean=188.284682 p50=188.03 p90=189.632 p95=189.652 p99=190.12 stdev=1.023276 min=181.04 max=190.746  # Perf_GetRandom.csv, 1000 samples (performance.yaml line 76)
HMAC               password   sha256.256b    n=1000 mean=408.746418 p50=408.792 p90=410.134 p95=410.319 p99=411.977 stdev=1.592428 min=385.296 max=4.2e+02  # Perf_HMAC.csv, 1000 samples (performance.yaml line 88)
Hash               none       sha1.256b      n=1000 mean=206.921089 p50=206.721 p90=207.993 p95=208.003 p99=209.239 stdev=1.151271 min=199.732 max=215.128  # Perf_Hash:0x0004.csv, 1000 samples (performance.yaml line 101)
Hash               none       sha256.256b    n=1000 mean=206.715443 p50=206.131 p90=207.993 p95=208 p99=209.034 stdev=1.273027 min=193.482 max=210.732  # Perf_Hash:0x000b.csv, 1000 samples (performance.yaml line 112)
RSA_Encrypt        none       rsa-1024.null  n=1000 mean=379.475914 p50=379.971 p90=381.051 p95=381.659 p99=382.131 stdev=1.245649 min=372.714 max=382.926  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv, 1000 samples (performance.yaml line 125)
RSA_Encrypt        none       rsa-1024.rsaes n=1000 mean=381.211686 p50=381.242 p90=382.91 p95=383.083 p99=383.991 stdev=1.635952 min=360.374 max=385.263  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv, 1000 samples (performance.yaml line 136)
RSA_Encrypt        none       rsa-1024.oaep  n=1000 mean=434.112992 p50=434.121 p90=435.984 p95=435.994 p99=436.912 stdev=1.450424 min=417.24 max=438.325  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv, 1000 samples (performance.yaml line 147)
RSA_Encrypt        none       rsa-2048.null  n=1000 mean=383.277142 p50=383.205 p90=384.011 p95=384.873 p99=386.101 stdev=1.180667 min=376.016 max=390.143  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv, 1000 samples (performance.yaml line 158)
RSA_Encrypt        none       rsa-2048.rsaes n=1000 mean=388.195758 p50=387.989 p90=389.662 p95=390.13 p99=391.186 stdev=1.378763 min=368.423 max=395.524  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv, 1000 samples (performance.yaml line 169)
RSA_Encrypt        none       rsa-2048.oaep  n=1000 mean=490.397808 p50=490.734 p90=491.985 p95=491.997 p99=493.254 stdev=1.775987 min=473.344 max=511.191  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv, 1000 samples (performance.yaml line 180)
Sign               password   ecc-p256.ecdsa n=1000 mean=441.612796 p50=441.521 p90=443.976 p95=444.01 p99=449.985 stdev=2.284254 min=429.279 max=458.598  # Perf_Sign:ECC_0x0003_0x0018.csv, 1000 samples (performance.yaml line 193)
Sign               password   ecc-p256.ecdaa n=1000 mean=413.760485 p50=413.87 p90=415.989 p95=416.004 p99=416.014 stdev=1.80101 min=397.65 max=432.771  # Perf_Sign:ECC_0x0003_0x001a.csv, 1000 samples (performance.yaml line 204)
Sign               password   ecc-bnp256.ecdaa n=1000 mean=413.86344 p50=414.142 p90=414.944 p95=415.987 p99=416.012 stdev=1.485518 min=400.391 max=422.753  # Perf_Sign:ECC_0x0010_0x001a.csv, 1000 samples (performance.yaml line 215)
Sign               password   rsa-1024.rsassa n=1000 mean=451.039879 p50=451.158 p90=452.677 p95=453.454 p99=457.86 stdev=2.187151 min=428.924 max=465.01  # Perf_Sign:RSA_1024_0x0014.csv, 1000 samples (performance.yaml line 226)
Sign               password   rsa-1024.rsapss n=1000 mean=480.436093 p50=480.537 p90=481.864 p95=482.145 p99=484.753 stdev=1.593535 min=465.733 max=491.306  # Perf_Sign:RSA_1024_0x0016.csv, 1000 samples (performance.yaml line 237)
Sign               password   rsa-2048.rsassa n=1000 mean=809.249697 p50=809.056 p90=813.263 p95=814.925 p99=818.122 stdev=3.566444 min=793.837 max=824.77  # Perf_Sign:RSA_2048_0x0014.csv, 1000 samples (performance.yaml line 248)
Sign               password   rsa-2048.rsapss n=1000 mean=867.782733 p50=867.974 p90=871.98 p95=873.169 p99=876.76 stdev=3.626163 min=844.599 max=887.967  # Perf_Sign:RSA_2048_0x0016.csv, 1000 samples (performance.yaml line 259)
VerifySignature    none       ecc-p256.ecdsa n=1000 mean=478.928228 p50=478.934 p90=480.006 p95=480.871 p99=482.103 stdev=1.241028 min=473.541 max=483.096  # Perf_VerifySignature:ECC_0x0003_0x0018.csv, 1000 samples (performance.yaml line 272)
VerifySignature    none       rsa-1024.rsassa n=1000 mean=385.837804 p50=386.119 p90=387.085 p95=387.197 p99=387.996 stdev=1.166087 min=379.996 max=395.992  # Perf_VerifySignature:RSA_1024_0x0014.csv, 1000 samples (performance.yaml line 283)
VerifySignature    none       rsa-1024.rsapss n=1000 mean=413.806669 p50=414.117 p90=414.929 p95=415.181 p99=415.995 stdev=1.230729 min=397.879 max=417.244  # Perf_VerifySignature:RSA_1024_0x0016.csv, 1000 samples (performance.yaml line 294)
VerifySignature    none       rsa-2048.rsassa n=1000 mean=397.741849 p50=398.115 p90=398.939 p95=399.2 p99=400.076 stdev=1.505719 min=380.069 max=409.064  # Perf_VerifySignature:RSA_2048_0x0014.csv, 1000 samples (performance.yaml line 305)
VerifySignature    none       rsa-2048.rsapss n=1000 mean=454.155144 p50=454.129 p90=455.98 p95=455.997 p99=457.055 stdev=1.649013 min=430.684 max=469.853  # Perf_VerifySignature:RSA_2048_0x0016.csv, 1000 samples (performance.yaml line 316)
CreatePrimary      password   ecc-p256       derived=Create n=1000 mean=344.517064 p50=344.581 p90=345.598 p95=345.788 p99=346.876 stdev=1.017466 min=337.77 max=347.731  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=1000 mean=344.484105 p50=344.651 p90=345.632 p95=345.812 p99=346.723 stdev=1.122821 min=332.054 max=347.937  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=1000 mean=294.537517 p50=294.684 p90=295.747 p95=295.931 p99=296.6 stdev=1.156786 min=285.983 max=297.633  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=1000 mean=1062.411447 p50=975.773 p90=1628.02 p95=1962.693 p99=2514.23 stdev=433.617336 min=455.938 max=3197.837  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=1000 mean=7066.486906 p50=6206.309 p90=12475.86 p95=14786.687 p99=20231.309 stdev=4058.864951 min=1338.822 max=26713.604  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=1000 mean=290.501419 p50=290.677 p90=291.765 p95=291.938 p99=292.805 stdev=1.398101 min=276.978 max=308.567  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=1000 mean=206.715443 p50=206.131 p90=207.993 p95=208 p99=209.034 stdev=1.273027 min=193.482 max=210.732  # derived: the figures of Hash sha256.256b (one digest)
