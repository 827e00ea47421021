tpmtrace-profile 1
name: ifx-slb9670-fw7.2.7.3074
vendor: IFX
chip: SLB9670
firmware: 7.2.7.3074
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023/03/15 11:56:49
source: crocs-muni/tpmscan-dataset, 9b1cd29f636b2857
covers: GetRandom Hash; derived (docs/profiles.md, Derived entries): PCR_Extend StartAuthSession FlushContext GetCapability PCR_Read ReadPublic NV_ReadPublic NV_Read Unseal GetTestResult ReadClock PolicyPCR PolicyGetDigest PolicyCommandCode PolicyAuthValue PolicyPassword PolicyRestart
lacks: NV writes (NV_DefineSpace, NV_Write, NV_UndefineSpace, NV_Increment, NV_Extend), Startup, SelfTest: no timed operation to derive them from; and of a boot's sessions: ContextLoad ContextSave CreatePrimary (their rules' sources not timed)
note: n, mean, p50/p90/p95/p99 (nearest rank), stdev, min and max of the samples of detail/Perf_*.csv (return code 0), through tpm2-tss with password authorization; bus and driver included, so transport-ms is 0.
note: host: PURLEY; Linux beaker.redhat.com 4.18.0-425.13.1.el8_7.x86_64 #1 SMP Thu Feb 2 13:01:45 EST 2023 x86_64 x86_64 x86_64 GNU/Linux
transport-ms: 0
# command  authorization  variant  figures in ms
GetRandom          none       32b            n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # Perf_GetRandom.csv, 1000 samples (performance.yaml line 14)
Hash               none       sha1.256b      n=1000 mean=5.897378 p50=5.995787 p90=6.000352 p95=6.001919 p99=6.004616 stdev=0.202533 min=5.377547 max=6.014565  # Perf_Hash:0x0004.csv, 1000 samples (performance.yaml line 26)
Hash               none       sha256.256b    n=1000 mean=5.782083 p50=5.994183 p90=6.000047 p95=6.002684 p99=6.006931 stdev=0.261166 min=5.368024 max=6.554079  # Perf_Hash:0x000b.csv, 1000 samples (performance.yaml line 37)
PCR_Extend         password   -              derived=Hash n=1000 mean=5.782083 p50=5.994183 p90=6.000047 p95=6.002684 p99=6.006931 stdev=0.261166 min=5.368024 max=6.554079  # derived: Hash sha256.256b; one digest in the TPM and a small command each way
StartAuthSession   none       unsalted       derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; a nonce from the TPM's generator, no key operation
FlushContext       none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
GetCapability      none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
PCR_Read           none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
ReadPublic         none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
NV_ReadPublic      none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
NV_Read            password   -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
Unseal             password   -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
GetTestResult      none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
ReadClock          none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
PolicyPCR          none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
PolicyGetDigest    none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
PolicyCommandCode  none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
PolicyAuthValue    none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
PolicyPassword     none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
PolicyRestart      none       -              derived=GetRandom n=1000 mean=4.684747 p50=4.553099 p90=4.998378 p95=4.999212 p99=5.00293 stdev=0.246152 min=4.430168 max=5.010188  # derived: GetRandom 32b; no key operation: the TPM's fixed cost of a small command
