tpmtrace-profile 1
name: ifx-slb9670-fw7.40.8.12800
vendor: IFX
chip: SLB9670
firmware: 7.40.8.12800
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/16 10:08:19
source: crocs-muni/tpmscan-dataset, 05687af8c6736754 05e3b7f92bf3f6b0 09690cedb8fa242d 34a6df3297353f48 7fb4fcc7499cd459 a6077b909c1d4670 ae4baf13adabea35
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: Mehlow UP Server Platform; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
note: 7 runs of this chip and firmware merged: their samples pooled, min and max over all
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=3000 mean=369.140422 p50=370.028764 p90=373.012004 p95=373.102425 p99=373.392541 stdev=3.577655 min=363.979103 max=375.30623  # Perf_Create:ECC_0x0003.csv of 3 runs, 3000 samples
Create             password   ecc-bnp256     n=3000 mean=379.968381 p50=381.043543 p90=384.009965 p95=384.088896 p99=384.204536 stdev=3.695006 min=374.985129 max=384.720628  # Perf_Create:ECC_0x0010.csv of 3 runs, 3000 samples
Create             password   hmac           n=3000 mean=322.292844 p50=323.007136 p90=325.991362 p95=326.118228 p99=326.268881 stdev=3.272084 min=317.950576 max=326.788317  # Perf_Create:HMAC.csv of 3 runs, 3000 samples
Create             password   rsa-1024       n=3000 mean=1099.085365 p50=987.475444 p90=1707.563998 p95=1992.358055 p99=2613.346878 stdev=459.086491 min=481.361795 max=3971.423891  # Perf_Create:RSA_1024.csv of 3 runs, 3000 samples
Create             password   rsa-2048       n=3000 mean=7233.102883 p50=6210.058429 p90=12907.104488 p95=15369.112689 p99=21128.092982 stdev=4318.206707 min=1180.065673 max=35927.057345  # Perf_Create:RSA_2048.csv of 3 runs, 3000 samples
GetRandom          none       32b            n=7000 mean=4.329562 p50=3.99678 p90=5.99696 p95=6.000079 p99=6.098857 stdev=0.949747 min=3.410142 max=8.096426  # Perf_GetRandom.csv of 7 runs, 7000 samples
HMAC               password   sha256.256b    n=3000 mean=59.109555 p50=59.877544 p90=60.055769 p95=60.10343 p99=60.951039 stdev=1.177959 min=56.969899 max=62.095839  # Perf_HMAC.csv of 3 runs, 3000 samples
Hash               none       sha1.256b      n=7000 mean=6.273784 p50=5.992958 p90=7.996943 p95=8.044536 p99=8.927937 stdev=1.021732 min=5.300457 max=10.006009  # Perf_Hash:0x0004.csv of 7 runs, 7000 samples
Hash               none       sha256.256b    n=7000 mean=6.560585 p50=5.997732 p90=8.002224 p95=8.111992 p99=9.000319 stdev=1.111039 min=5.327894 max=10.119771  # Perf_Hash:0x000b.csv of 7 runs, 7000 samples
RSA_Decrypt        password   rsa-1024.null  n=3000 mean=179.075492 p50=178.997581 p90=182.093343 p95=182.964364 p99=183.097898 stdev=2.387075 min=173.995555 max=184.095809  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-1024.rsaes n=3000 mean=179.389473 p50=179.001267 p90=181.996196 p95=182.072327 p99=182.993574 stdev=1.938297 min=173.995971 max=183.980661  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-1024.oaep  n=3000 mean=235.814533 p50=235.992551 p90=238.092493 p95=238.995969 p99=239.098383 stdev=2.040557 min=229.997906 max=240.996802  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-2048.null  n=3000 mean=599.287608 p50=600.002706 p90=605.995903 p95=607.128207 p99=609.996068 stdev=5.57112 min=583.003721 max=615.096342  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-2048.rsaes n=3000 mean=600.278902 p50=601.017057 p90=606.995757 p95=608.007554 p99=610.997126 stdev=5.677804 min=583.994805 max=614.99638  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv of 3 runs, 3000 samples
RSA_Decrypt        password   rsa-2048.oaep  n=3000 mean=710.801152 p50=712.882418 p90=718.872701 p95=719.996347 p99=722.099351 stdev=6.689817 min=692.991846 max=726.113699  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-1024.null  n=3000 mean=46.732927 p50=45.999694 p90=48.991356 p95=49.012278 p99=49.099041 stdev=1.441588 min=44.973354 max=50.894075  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-1024.rsaes n=3000 mean=48.346966 p50=47.995613 p90=50.987051 p95=50.996995 p99=51.097771 stdev=1.524242 min=46.941058 max=51.993721  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-1024.oaep  n=3000 mean=103.538595 p50=103.001141 p90=105.995683 p95=106.096039 p99=107.08804 stdev=1.76422 min=100.975476 max=108.093629  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-2048.null  n=3000 mean=75.869131 p50=76.00148 p90=77.079906 p95=77.115456 p99=77.998967 stdev=1.244174 min=72.994173 max=79.100147  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-2048.rsaes n=3000 mean=80.916146 p50=81.000841 p90=82.067235 p95=82.1099 p99=82.999801 stdev=1.196669 min=77.978861 max=84.136552  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv of 3 runs, 3000 samples
RSA_Encrypt        none       rsa-2048.oaep  n=3000 mean=187.68577 p50=187.999247 p90=189.993921 p95=190.000149 p99=190.09175 stdev=1.816653 min=182.994346 max=191.095321  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv of 3 runs, 3000 samples
Sign               password   ecc-p256.ecdsa n=3000 mean=163.951547 p50=163.993191 p90=165.998728 p95=166.009247 p99=166.164838 stdev=1.600056 min=160.97718 max=167.994454  # Perf_Sign:ECC_0x0003_0x0018.csv of 3 runs, 3000 samples
Sign               password   ecc-p256.ecdaa n=3000 mean=140.174696 p50=139.954377 p90=141.957535 p95=142.067533 p99=142.95723 stdev=1.336883 min=136.943403 max=143.953078  # Perf_Sign:ECC_0x0003_0x001a.csv of 3 runs, 3000 samples
Sign               password   ecc-bnp256.ecdaa n=3000 mean=140.452983 p50=139.958081 p90=142.953422 p95=142.95593 p99=142.961086 stdev=1.520778 min=137.924818 max=143.953611  # Perf_Sign:ECC_0x0010_0x001a.csv of 3 runs, 3000 samples
Sign               password   rsa-1024.rsassa n=3000 mean=197.093165 p50=197.99288 p90=198.999412 p95=199.097225 p99=199.993763 stdev=1.843965 min=192.992615 max=202.001528  # Perf_Sign:RSA_1024_0x0014.csv of 3 runs, 3000 samples
Sign               password   rsa-1024.rsapss n=3000 mean=234.132887 p50=234.996855 p90=236.030253 p95=236.852441 p99=237.023292 stdev=2.129275 min=228.995697 max=237.996449  # Perf_Sign:RSA_1024_0x0016.csv of 3 runs, 3000 samples
Sign               password   rsa-2048.rsassa n=3000 mean=631.787763 p50=632.9987 p90=638.985699 p95=640.000158 p99=642.885176 stdev=6.008507 min=614.990907 max=646.068956  # Perf_Sign:RSA_2048_0x0014.csv of 3 runs, 3000 samples
Sign               password   rsa-2048.rsapss n=3000 mean=704.908091 p50=706.885145 p90=711.99409 p95=713.002318 p99=715.993469 stdev=6.172312 min=687.00237 max=719.000896  # Perf_Sign:RSA_2048_0x0016.csv of 3 runs, 3000 samples
VerifySignature    none       ecc-p256.ecdsa n=3000 mean=85.92708 p50=85.996628 p90=87.218621 p95=87.996079 p99=88.017004 stdev=1.457175 min=76.985932 max=89.093336  # Perf_VerifySignature:ECC_0x0003_0x0018.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-1024.rsassa n=3000 mean=67.015987 p50=67.002129 p90=68.078091 p95=68.109801 p99=69.060965 stdev=1.207549 min=63.984877 max=69.997252  # Perf_VerifySignature:RSA_1024_0x0014.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-1024.rsapss n=3000 mean=103.069951 p50=102.999033 p90=104.997106 p95=105.09034 p99=105.109117 stdev=1.888528 min=99.497245 max=107.001137  # Perf_VerifySignature:RSA_1024_0x0016.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-2048.rsassa n=3000 mean=108.003636 p50=108.884782 p90=109.887722 p95=109.990334 p99=110.098248 stdev=1.479691 min=104.981296 max=111.996561  # Perf_VerifySignature:RSA_2048_0x0014.csv of 3 runs, 3000 samples
VerifySignature    none       rsa-2048.rsapss n=3000 mean=180.361702 p50=180.994698 p90=182.770082 p95=182.984386 p99=183.082597 stdev=2.001796 min=175.984052 max=183.972386  # Perf_VerifySignature:RSA_2048_0x0016.csv of 3 runs, 3000 samples
CreatePrimary      password   ecc-p256       derived=Create n=3000 mean=369.140422 p50=370.028764 p90=373.012004 p95=373.102425 p99=373.392541 stdev=3.577655 min=363.979103 max=375.30623  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=3000 mean=379.968381 p50=381.043543 p90=384.009965 p95=384.088896 p99=384.204536 stdev=3.695006 min=374.985129 max=384.720628  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=3000 mean=322.292844 p50=323.007136 p90=325.991362 p95=326.118228 p99=326.268881 stdev=3.272084 min=317.950576 max=326.788317  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=3000 mean=1099.085365 p50=987.475444 p90=1707.563998 p95=1992.358055 p99=2613.346878 stdev=459.086491 min=481.361795 max=3971.423891  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=3000 mean=7233.102883 p50=6210.058429 p90=12907.104488 p95=15369.112689 p99=21128.092982 stdev=4318.206707 min=1180.065673 max=35927.057345  # derived: the figures of Create rsa-2048 (same key type)
PCR_Extend         password   -              derived=Hash n=7000 mean=6.560585 p50=5.997732 p90=8.002224 p95=8.111992 p99=9.000319 stdev=1.111039 min=5.327894 max=10.119771  # derived: the figures of Hash sha256.256b (one digest)
