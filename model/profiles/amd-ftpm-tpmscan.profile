tpmtrace-profile 1
name: amd-ftpm-tpmscan
vendor: AMD
chip: AMD fTPM
firmware: 3.37.0.5
bus: firmware TPM (CRB)
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2020-09-27
source: TPMScan, CHES 2024; crocs-muni/tpmscan-dataset AMD/3.37.0.5 performance.yaml (averages as published in docs/profiles.md)
covers: Create ECC P-256, GetRandom 32 bytes, Sign ECDSA P-256 (approximate) (TPMScan)
lacks: CreatePrimary, PCR_Extend, StartAuthSession, ContextLoad, ContextSave, FlushContext, ReadPublic; no spread
transport-ms: 0
Create             password       ecc-p256        mean=9       # TPMScan
GetRandom          none           32b             mean=3       # TPMScan
Sign               password       ecc-p256.ecdsa  mean=6       # TPMScan, published as "~6"
