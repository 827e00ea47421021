tpmtrace-profile 1
name: ntc-npct75x-tpmscan
vendor: NTC
chip: NPCT75x
firmware: 7.2.3.1
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023-12-19
source: TPMScan, CHES 2024; crocs-muni/tpmscan-dataset NTC/7.2.3.1 performance.yaml (averages as published in docs/profiles.md)
source: wolfTPM README benchmark table (NPCT750): CreatePrimary-derived ECC P-256 key 84 ms, ECDSA sign 56.4 ms
covers: Create ECC P-256, GetRandom 32 bytes, Sign ECDSA P-256 (TPMScan); CreatePrimary ECC P-256 (wolfTPM, NPCT750)
lacks: PCR_Extend, StartAuthSession, ContextLoad, ContextSave, FlushContext, ReadPublic; no spread
note: the wolfTPM figure is for an NPCT750, the TPMScan figures for an NPCT75x family chip: they need not be the same part.
transport-ms: 0
Create             password       ecc-p256        mean=130     # TPMScan
GetRandom          none           32b             mean=38.7    # TPMScan
Sign               password       ecc-p256.ecdsa  mean=129.8   # TPMScan; wolfTPM (NPCT750) gives 56.4
CreatePrimary      password       ecc-p256        mean=84      # wolfTPM README (NPCT750)
