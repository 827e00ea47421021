tpmtrace-profile 1
name: intel-ptt-tpmscan
vendor: INTC
chip: Intel PTT (ADL)
firmware: 600.18.0.0
bus: firmware TPM (CRB)
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023-04-21
source: TPMScan, CHES 2024; crocs-muni/tpmscan-dataset INTC/600.18.0.0 performance.yaml (averages as published in docs/profiles.md)
covers: Create ECC P-256, GetRandom 32 bytes, Sign ECDSA P-256 (TPMScan)
lacks: CreatePrimary, PCR_Extend, StartAuthSession, ContextLoad, ContextSave, FlushContext, ReadPublic; no spread
transport-ms: 0
Create             password       ecc-p256        mean=16.8    # TPMScan
GetRandom          none           32b             mean=1.5     # TPMScan
Sign               password       ecc-p256.ecdsa  mean=13      # TPMScan
