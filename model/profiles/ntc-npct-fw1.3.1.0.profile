tpmtrace-profile 1
name: ntc-npct-fw1.3.1.0
vendor: NTC
chip: rlsNPCT
firmware: 1.3.1.0
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/15 08:26:14
source: crocs-muni/tpmscan-dataset, 49bd690c181c3be5 4ca204cde91877e2 68115735eb8ccedf 7350b8b2ae90e474 823c10db20ecae94 875ea63b7ea6653d 9302c3d823769222 95b3b6e99b369291 9bd52e8f58bcaaa8 a37364512e505268 b7030bbbfb04ec23 d7e1fd7af7aa47c7
covers: GetRandom Hash Create HMAC RSA_Decrypt RSA_Encrypt Sign VerifySignature ZGen_2Phase; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: PowerEdge R7515; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 12 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
GetRandom          none       32b            n=12000 mean=4.709183 p50=4.700725 p90=4.886499 p95=4.993894 p99=5.063948 stdev=0.191065 min=4.313318 max=9.922682  # Perf_GetRandom.csv of 12 runs, 12000 samples
Hash               none       sha1.256b      n=12000 mean=4.453491 p50=4.386757 p90=5.073639 p95=5.268041 p99=5.396624 stdev=0.49287 min=3.889654 max=5.457245  # Perf_Hash:0x0004.csv of 12 runs, 12000 samples
Hash               none       sha256.256b    n=12000 mean=4.573345 p50=4.422116 p90=5.247393 p95=5.424047 p99=5.427572 stdev=0.513826 min=3.908999 max=5.592311  # Perf_Hash:0x000b.csv of 12 runs, 12000 samples
Create             password   ecc-p256       n=11000 mean=77.613144 p50=77.732642 p90=78.3801 p95=78.852639 p99=78.994496 stdev=0.749144 min=74.552972 max=83.829388  # Perf_Create:ECC_0x0003.csv of 11 runs, 11000 samples
Create             password   ecc-bnp256     n=11000 mean=129.399083 p50=129.727866 p90=130.867427 p95=130.900929 p99=131.897737 stdev=1.199905 min=124.408233 max=135.867587  # Perf_Create:ECC_0x0010.csv of 11 runs, 11000 samples
Create             password   hmac           n=11000 mean=23.236079 p50=23.297005 p90=23.891098 p95=23.971832 p99=24.858634 stdev=0.56248 min=22.159204 max=28.845501  # Perf_Create:HMAC.csv of 11 runs, 11000 samples
Create             password   rsa-1024       n=11000 mean=3250.46108 p50=2836.557972 p90=5572.91774 p95=6669.543973 p99=9044.533384 stdev=1782.858612 min=735.012992 max=16404.915346  # Perf_Create:RSA_1024.csv of 11 runs, 11000 samples
Create             password   rsa-2048       n=11000 mean=22273.647104 p50=19106.853215 p90=41503.51424 p95=50160.867389 p99=69424.741405 stdev=14383.065937 min=2131.22332 max=122875.469866  # Perf_Create:RSA_2048.csv of 11 runs, 11000 samples
HMAC               password   sha256.256b    n=11000 mean=6.034571 p50=5.997975 p90=6.463316 p95=6.46574 p99=6.475076 stdev=0.27963 min=4.933531 max=7.105747  # Perf_HMAC.csv of 11 runs, 11000 samples
RSA_Decrypt        password   rsa-1024.null  n=11000 mean=90.678302 p50=90.992281 p90=91.754797 p95=91.914522 p99=92.017471 stdev=0.905285 min=87.761496 max=96.02908  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 11 runs, 11000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=11000 mean=90.082937 p50=89.997395 p90=91.005541 p95=91.579539 p99=91.593945 stdev=0.921305 min=87.278551 max=95.599277  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 11 runs, 11000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=11000 mean=94.333108 p50=94.018826 p90=95.983548 p95=95.996382 p99=96.000021 stdev=0.96068 min=91.923503 max=100.020911  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 11 runs, 11000 samples
RSA_Decrypt        password   rsa-2048.null  n=11000 mean=560.135348 p50=560.996554 p90=564.982372 p95=564.99977 p99=565.110456 stdev=4.637371 min=544.99811 max=568.472266  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 11 runs, 11000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=11000 mean=557.963803 p50=558.989145 p90=562.881962 p95=563.997436 p99=564.997774 stdev=4.820247 min=543.056758 max=577.994376  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 11 runs, 11000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=11000 mean=565.894964 p50=566.118444 p90=570.999403 p95=571.995971 p99=572.000891 stdev=4.949153 min=550.993921 max=583.999078  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 11 runs, 11000 samples
RSA_Encrypt        none       rsa-1024.null  n=11000 mean=7.136295 p50=6.996554 p90=7.847029 p95=7.997509 p99=8.147588 stdev=0.312891 min=6.698021 max=8.449662  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 11 runs, 11000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=11000 mean=9.275703 p50=9.014344 p90=10.001284 p95=10.094952 p99=10.180129 stdev=0.441145 min=8.838255 max=14.194159  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 11 runs, 11000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=11000 mean=13.115768 p50=12.996865 p90=13.199373 p95=13.905898 p99=14.199048 stdev=0.310997 min=12.647928 max=18.219651  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 11 runs, 11000 samples
RSA_Encrypt        none       rsa-2048.null  n=11000 mean=12.62045 p50=12.52088 p90=13.136635 p95=13.522769 p99=14.009358 stdev=0.551418 min=11.835235 max=14.373659  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 11 runs, 11000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=11000 mean=16.939202 p50=16.995861 p90=17.540306 p95=17.897814 p99=18.129634 stdev=0.494253 min=15.844397 max=21.993235  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 11 runs, 11000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=11000 mean=22.072943 p50=21.997511 p90=22.570002 p95=22.986944 p99=23.127989 stdev=0.420777 min=20.927902 max=27.791682  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 11 runs, 11000 samples
Sign               password   ecc-p256.ecdsa n=11000 mean=197.727731 p50=197.965424 p90=207.997731 p95=210.997478 p99=215.997648 stdev=8.095479 min=165.472691 max=228.025364  # Perf_Sign:ECC_0x0003_0x0018.csv of 11 runs, 11000 samples
Sign               password   ecc-p256.ecdaa n=11000 mean=7.322201 p50=6.990947 p90=8.018191 p95=8.02223 p99=8.060946 stdev=0.496408 min=6.661713 max=8.265932  # Perf_Sign:ECC_0x0003_0x001a.csv of 11 runs, 11000 samples
Sign               password   ecc-p256.ecschnorr n=11000 mean=64.034629 p50=63.996386 p90=64.996427 p95=65.017765 p99=65.259694 stdev=0.670366 min=61.885745 max=69.277722  # Perf_Sign:ECC_0x0003_0x001c.csv of 11 runs, 11000 samples
Sign               password   ecc-bnp256.ecdsa n=11000 mean=195.589521 p50=195.771352 p90=205.996236 p95=208.98893 p99=213.990197 stdev=8.065634 min=166.979844 max=225.999298  # Perf_Sign:ECC_0x0010_0x0018.csv of 11 runs, 11000 samples
Sign               password   ecc-bnp256.ecdaa n=11000 mean=7.336728 p50=7.011177 p90=8.018343 p95=8.021809 p99=8.053419 stdev=0.523283 min=6.777349 max=23.969503  # Perf_Sign:ECC_0x0010_0x001a.csv of 11 runs, 11000 samples
Sign               password   ecc-bnp256.ecschnorr n=11000 mean=62.152876 p50=61.998292 p90=62.999212 p95=63.115864 p99=63.255133 stdev=0.693935 min=59.01845 max=68.115642  # Perf_Sign:ECC_0x0010_0x001c.csv of 11 runs, 11000 samples
Sign               password   rsa-1024.rsassa n=11000 mean=89.932013 p50=89.995956 p90=90.997505 p95=91.001787 p99=91.120898 stdev=0.890479 min=86.967315 max=96.000244  # Perf_Sign:RSA_1024_0x0014.csv of 11 runs, 11000 samples
Sign               password   rsa-1024.rsapss n=11000 mean=94.196327 p50=94.113507 p90=95.001132 p95=95.026373 p99=95.977958 stdev=0.903662 min=90.970443 max=99.997048  # Perf_Sign:RSA_1024_0x0016.csv of 11 runs, 11000 samples
Sign               password   rsa-2048.rsassa n=11000 mean=558.125117 p50=559.004584 p90=562.946323 p95=564.995473 p99=565.003658 stdev=5.260611 min=542.905605 max=578.111468  # Perf_Sign:RSA_2048_0x0014.csv of 11 runs, 11000 samples
Sign               password   rsa-2048.rsapss n=11000 mean=564.469829 p50=564.98691 p90=569.273888 p95=570.992998 p99=571.003034 stdev=4.996674 min=548.994606 max=574.999126  # Perf_Sign:RSA_2048_0x0016.csv of 11 runs, 11000 samples
VerifySignature    none       ecc-p256.ecschnorr n=11000 mean=125.687637 p50=125.995053 p90=126.471082 p95=126.996115 p99=127.188267 stdev=1.143682 min=121.934802 max=142.995107  # Perf_VerifySignature:ECC_0x0003_0x001c.csv of 11 runs, 11000 samples
VerifySignature    none       ecc-bnp256.ecschnorr n=11000 mean=122.10978 p50=122.011764 p90=123.000239 p95=123.087598 p99=123.875595 stdev=0.999544 min=118.935706 max=128.129632  # Perf_VerifySignature:ECC_0x0010_0x001c.csv of 11 runs, 11000 samples
VerifySignature    none       rsa-1024.rsassa n=11000 mean=7.009761 p50=6.999807 p90=7.102688 p95=7.105621 p99=7.130647 stdev=0.086255 min=6.271627 max=7.823958  # Perf_VerifySignature:RSA_1024_0x0014.csv of 11 runs, 11000 samples
VerifySignature    none       rsa-1024.rsapss n=11000 mean=9.543789 p50=9.930527 p90=10.109854 p95=10.117641 p99=10.123261 stdev=0.504633 min=8.80479 max=10.40505  # Perf_VerifySignature:RSA_1024_0x0016.csv of 11 runs, 11000 samples
VerifySignature    none       rsa-2048.rsassa n=11000 mean=12.113967 p50=11.999346 p90=12.460676 p95=12.464193 p99=12.499295 stdev=0.204792 min=11.608812 max=13.260243  # Perf_VerifySignature:RSA_2048_0x0014.csv of 11 runs, 11000 samples
VerifySignature    none       rsa-2048.rsapss n=11000 mean=16.957977 p50=16.994834 p90=17.478419 p95=17.483419 p99=17.492155 stdev=0.314724 min=15.958792 max=17.978794  # Perf_VerifySignature:RSA_2048_0x0016.csv of 11 runs, 11000 samples
ZGen_2Phase        password   ecc-p256.ecdh  n=11000 mean=117.684137 p50=118.130736 p90=119.155589 p95=119.162125 p99=119.432841 stdev=1.108259 min=114.133497 max=123.295516  # Perf_ZGen:0x0003_0x0019.csv of 11 runs, 11000 samples
ZGen_2Phase        password   ecc-bnp256.ecdh n=11000 mean=113.918463 p50=114.151111 p90=115.158033 p95=115.22308 p99=115.442192 stdev=1.08406 min=109.92884 max=119.152064  # Perf_ZGen:0x0010_0x0019.csv of 11 runs, 11000 samples
CreatePrimary      password   ecc-p256       derived=Create n=11000 mean=77.613144 p50=77.732642 p90=78.3801 p95=78.852639 p99=78.994496 stdev=0.749144 min=74.552972 max=83.829388  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=11000 mean=129.399083 p50=129.727866 p90=130.867427 p95=130.900929 p99=131.897737 stdev=1.199905 min=124.408233 max=135.867587  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=11000 mean=23.236079 p50=23.297005 p90=23.891098 p95=23.971832 p99=24.858634 stdev=0.56248 min=22.159204 max=28.845501  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=11000 mean=3250.46108 p50=2836.557972 p90=5572.91774 p95=6669.543973 p99=9044.533384 stdev=1782.858612 min=735.012992 max=16404.915346  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=11000 mean=22273.647104 p50=19106.853215 p90=41503.51424 p95=50160.867389 p99=69424.741405 stdev=14383.065937 min=2131.22332 max=122875.469866  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=12000 mean=4.573345 p50=4.422116 p90=5.247393 p95=5.424047 p99=5.427572 stdev=0.513826 min=3.908999 max=5.592311  # derived: the figures of Hash sha256.256b (one digest)
