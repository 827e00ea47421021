tpmtrace-profile 1
name: ifx-slb9670-fw7.61.10.57600
vendor: IFX
chip: SLB9670
firmware: 7.61.10.57600
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/10 14:11:19
source: crocs-muni/tpmscan-dataset, 8832e864d7814add
covers: Create GetRandom HMAC Hash RSA_Decrypt RSA_Encrypt Sign VerifySignature; derived: CreatePrimary (from Create), PCR_Extend (from Hash)
lacks: StartAuthSession ContextLoad ContextSave FlushContext ReadPublic (not measured by tpm2-algtest)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: HP ProBook 450 G4; Linux algtest-live 6.1.9-200.fc37.x86_64 #1 SMP PREEMPT_DYNAMIC Thu Feb  2 00:21:48 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux
transport-ms: 0
# command  authorization  variant  figures in ms
Create             password   ecc-p256       n=1000 mean=159.634987 p50=159.285162 p90=161.430961 p95=161.525515 p99=161.69533 stdev=1.064842 min=158.121162 max=164.40433  # Perf_Create:ECC_0x0003.csv, 1000 samples (performance.yaml line 14)
Create             password   ecc-bnp256     n=1000 mean=159.29663 p50=159.171369 p90=160.617018 p95=161.233822 p99=161.515384 stdev=0.976424 min=157.598036 max=164.434602  # Perf_Create:ECC_0x0010.csv, 1000 samples (performance.yaml line 24)
Create             password   hmac           n=1000 mean=109.46888 p50=109.201146 p90=111.164101 p95=111.465003 p99=111.730013 stdev=1.105145 min=107.858738 max=119.20927  # Perf_Create:HMAC.csv, 1000 samples (performance.yaml line 34)
Create             password   rsa-1024       n=1000 mean=873.844144 p50=782.511733 p90=1441.706931 p95=1679.981379 p99=2255.547352 stdev=432.482587 min=269.788447 max=3332.749889  # Perf_Create:RSA_1024.csv, 1000 samples (performance.yaml line 44)
Create             password   rsa-2048       n=1000 mean=7158.374971 p50=6255.465195 p90=13531.110915 p95=15890.248862 p99=20863.230704 stdev=4407.545451 min=1023.451749 max=27492.265529  # Perf_Create:RSA_2048.csv, 1000 samples (performance.yaml line 54)
Create             password   aes-128        n=1000 mean=104.479767 p50=104.17981 p90=106.202416 p95=106.441058 p99=106.585549 stdev=1.035036 min=102.846624 max=115.350062  # Perf_Create:SYMCIPHER_0x0006_128.csv, 1000 samples (performance.yaml line 64)
GetRandom          none       32b            n=1000 mean=4.498647 p50=4.027577 p90=5.916641 p95=6.021038 p99=6.166473 stdev=0.969111 min=2.94012 max=14.386425  # Perf_GetRandom.csv, 1000 samples (performance.yaml line 76)
HMAC               password   sha256.256b    n=1000 mean=25.485849 p50=25.076514 p90=26.997642 p95=27.032619 p99=27.101213 stdev=1.140514 min=23.60063 max=35.987007  # Perf_HMAC.csv, 1000 samples (performance.yaml line 88)
Hash               none       sha1.256b      n=1000 mean=6.020662 p50=5.753702 p90=7.254892 p95=7.836197 p99=7.953342 stdev=0.987367 min=4.049633 max=13.377902  # Perf_Hash:0x0004.csv, 1000 samples (performance.yaml line 101)
Hash               none       sha256.256b    n=1000 mean=6.086517 p50=5.788444 p90=7.536052 p95=7.901299 p99=8.064175 stdev=1.145768 min=4.544704 max=21.328183  # Perf_Hash:0x000b.csv, 1000 samples (performance.yaml line 112)
RSA_Decrypt        password   rsa-1024.null  n=1000 mean=82.38588 p50=82.037311 p90=83.03922 p95=83.954292 p99=84.941329 stdev=0.897851 min=79.858099 max=92.002657  # Perf_RSA_Decrypt:RSA_1024_0x0010.csv, 1000 samples (performance.yaml line 125)
RSA_Decrypt        password   rsa-1024.rsaes n=1000 mean=84.20069 p50=83.975059 p90=85.981471 p95=86.175114 p99=87.035375 stdev=1.282815 min=81.814859 max=96.018587  # Perf_RSA_Decrypt:RSA_1024_0x0015.csv, 1000 samples (performance.yaml line 136)
RSA_Decrypt        password   rsa-1024.oaep  n=1000 mean=133.994644 p50=133.950804 p90=135.973395 p95=136.024115 p99=137.025093 stdev=1.419071 min=130.991596 max=149.925678  # Perf_RSA_Decrypt:RSA_1024_0x0017.csv, 1000 samples (performance.yaml line 147)
RSA_Decrypt        password   rsa-2048.null  n=1000 mean=447.445505 p50=447.085679 p90=451.958977 p95=453.037207 p99=456.027154 stdev=3.467454 min=436.00689 max=460.013658  # Perf_RSA_Decrypt:RSA_2048_0x0010.csv, 1000 samples (performance.yaml line 158)
RSA_Decrypt        password   rsa-2048.rsaes n=1000 mean=450.751784 p50=450.90078 p90=455.860435 p95=456.982196 p99=460.001426 stdev=3.640546 min=440.948861 max=464.964211  # Perf_RSA_Decrypt:RSA_2048_0x0015.csv, 1000 samples (performance.yaml line 169)
RSA_Decrypt        password   rsa-2048.oaep  n=1000 mean=547.849247 p50=547.930091 p90=551.981962 p95=553.04266 p99=555.22445 stdev=3.263884 min=538.070983 max=561.893808  # Perf_RSA_Decrypt:RSA_2048_0x0017.csv, 1000 samples (performance.yaml line 180)
RSA_Encrypt        none       rsa-1024.null  n=1000 mean=7.208602 p50=6.987879 p90=7.991863 p95=8.996275 p99=9.230761 stdev=0.766044 min=5.871398 max=16.90317  # Perf_RSA_Encrypt:RSA_1024_0x0010.csv, 1000 samples (performance.yaml line 193)
RSA_Encrypt        none       rsa-1024.rsaes n=1000 mean=9.161929 p50=8.986702 p90=9.904336 p95=10.999387 p99=11.734631 stdev=0.753214 min=7.908908 max=18.088177  # Perf_RSA_Encrypt:RSA_1024_0x0015.csv, 1000 samples (performance.yaml line 204)
RSA_Encrypt        none       rsa-1024.oaep  n=1000 mean=59.04905 p50=58.97461 p90=59.102338 p95=59.804829 p99=61.2393 stdev=0.559093 min=57.909515 max=68.950458  # Perf_RSA_Encrypt:RSA_1024_0x0017.csv, 1000 samples (performance.yaml line 215)
RSA_Encrypt        none       rsa-2048.null  n=1000 mean=11.462263 p50=11.011227 p90=12.989678 p95=13.018253 p99=13.681667 stdev=0.978602 min=9.708195 max=14.20273  # Perf_RSA_Encrypt:RSA_2048_0x0010.csv, 1000 samples (performance.yaml line 226)
RSA_Encrypt        none       rsa-2048.rsaes n=1000 mean=16.807562 p50=16.297703 p90=18.908759 p95=18.982285 p99=19.151192 stdev=1.164672 min=14.732524 max=19.732446  # Perf_RSA_Encrypt:RSA_2048_0x0015.csv, 1000 samples (performance.yaml line 237)
RSA_Encrypt        none       rsa-2048.oaep  n=1000 mean=113.120771 p50=112.942268 p90=114.975273 p95=115.003651 p99=115.168621 stdev=1.251275 min=111.419803 max=121.85846  # Perf_RSA_Encrypt:RSA_2048_0x0017.csv, 1000 samples (performance.yaml line 248)
Sign               password   ecc-p256.ecdsa n=1000 mean=73.020279 p50=72.911205 p90=74.975336 p95=75.013229 p99=75.103966 stdev=1.172813 min=70.880465 max=79.979635  # Perf_Sign:ECC_0x0003_0x0018.csv, 1000 samples (performance.yaml line 261)
Sign               password   ecc-p256.ecdaa n=1000 mean=43.688523 p50=42.990976 p90=45.958838 p95=45.991487 p99=46.074855 stdev=1.221546 min=41.852042 max=51.164006  # Perf_Sign:ECC_0x0003_0x001a.csv, 1000 samples (performance.yaml line 272)
Sign               password   ecc-bnp256.ecdaa n=1000 mean=43.756738 p50=43.010297 p90=45.962852 p95=46.00283 p99=46.105664 stdev=1.244188 min=42.638717 max=53.960297  # Perf_Sign:ECC_0x0010_0x001a.csv, 1000 samples (performance.yaml line 283)
Sign               password   rsa-1024.rsassa n=1000 mean=83.456543 p50=83.097989 p90=84.052927 p95=84.790392 p99=85.058426 stdev=0.765808 min=80.931429 max=91.95388  # Perf_Sign:RSA_1024_0x0014.csv, 1000 samples (performance.yaml line 294)
Sign               password   rsa-1024.rsapss n=1000 mean=114.288219 p50=114.022524 p90=115.010733 p95=115.084361 p99=115.971176 stdev=0.758556 min=111.958174 max=121.928178  # Perf_Sign:RSA_1024_0x0016.csv, 1000 samples (performance.yaml line 305)
Sign               password   rsa-2048.rsassa n=1000 mean=449.361041 p50=449.032758 p90=453.086003 p95=454.872097 p99=456.994961 stdev=3.137459 min=439.992333 max=460.895378  # Perf_Sign:RSA_2048_0x0014.csv, 1000 samples (performance.yaml line 316)
Sign               password   rsa-2048.rsapss n=1000 mean=511.35784 p50=511.051388 p90=515.919421 p95=516.995564 p99=520.060466 stdev=3.549422 min=499.999067 max=535.139191  # Perf_Sign:RSA_2048_0x0016.csv, 1000 samples (performance.yaml line 327)
VerifySignature    none       ecc-p256.ecdsa n=1000 mean=109.642398 p50=109.085914 p90=111.03137 p95=111.931872 p99=112.060437 stdev=1.163785 min=101.688957 max=117.877156  # Perf_VerifySignature:ECC_0x0003_0x0018.csv, 1000 samples (performance.yaml line 340)
VerifySignature    none       rsa-1024.rsassa n=1000 mean=8.205919 p50=7.984559 p90=9.990463 p95=10.037559 p99=10.30357 stdev=1.164472 min=6.263383 max=14.677899  # Perf_VerifySignature:RSA_1024_0x0014.csv, 1000 samples (performance.yaml line 351)
VerifySignature    none       rsa-1024.rsapss n=1000 mean=38.214293 p50=37.978171 p90=39.978864 p95=40.013241 p99=40.210782 stdev=1.159681 min=36.081392 max=41.089384  # Perf_VerifySignature:RSA_1024_0x0016.csv, 1000 samples (performance.yaml line 362)
VerifySignature    none       rsa-2048.rsassa n=1000 mean=11.831307 p50=11.828661 p90=13.022805 p95=13.758142 p99=14.026565 stdev=1.094266 min=9.888083 max=18.981381  # Perf_VerifySignature:RSA_2048_0x0014.csv, 1000 samples (performance.yaml line 373)
VerifySignature    none       rsa-2048.rsapss n=1000 mean=71.831821 p50=71.248368 p90=73.09197 p95=73.947996 p99=74.075941 stdev=1.191453 min=69.746865 max=80.9384  # Perf_VerifySignature:RSA_2048_0x0016.csv, 1000 samples (performance.yaml line 384)
CreatePrimary      password   ecc-p256       derived=Create n=1000 mean=159.634987 p50=159.285162 p90=161.430961 p95=161.525515 p99=161.69533 stdev=1.064842 min=158.121162 max=164.40433  # derived: the figures of Create ecc-p256 (same key type)
CreatePrimary      password   ecc-bnp256     derived=Create n=1000 mean=159.29663 p50=159.171369 p90=160.617018 p95=161.233822 p99=161.515384 stdev=0.976424 min=157.598036 max=164.434602  # derived: the figures of Create ecc-bnp256 (same key type)
CreatePrimary      password   hmac           derived=Create n=1000 mean=109.46888 p50=109.201146 p90=111.164101 p95=111.465003 p99=111.730013 stdev=1.105145 min=107.858738 max=119.20927  # derived: the figures of Create hmac (same key type)
CreatePrimary      password   rsa-1024       derived=Create n=1000 mean=873.844144 p50=782.511733 p90=1441.706931 p95=1679.981379 p99=2255.547352 stdev=432.482587 min=269.788447 max=3332.749889  # derived: the figures of Create rsa-1024 (same key type)
CreatePrimary      password   rsa-2048       derived=Create n=1000 mean=7158.374971 p50=6255.465195 p90=13531.110915 p95=15890.248862 p99=20863.230704 stdev=4407.545451 min=1023.451749 max=27492.265529  # derived: the figures of Create rsa-2048 (same key type)
CreatePrimary      password   aes-128        derived=Create n=1000 mean=104.479767 p50=104.17981 p90=106.202416 p95=106.441058 p99=106.585549 stdev=1.035036 min=102.846624 max=115.350062  # derived: the figures of Create aes-128 (same key type)
PCR_Extend         password   -              derived=Hash n=1000 mean=6.086517 p50=5.788444 p90=7.536052 p95=7.901299 p99=8.064175 stdev=1.145768 min=4.544704 max=21.328183  # derived: the figures of Hash sha256.256b (one digest)
