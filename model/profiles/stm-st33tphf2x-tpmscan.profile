tpmtrace-profile 1
name: stm-st33tphf2x-tpmscan
vendor: STM
chip: ST33TPHF2XSPI
firmware: 1.769.0.0
bus: SPI (Lenovo ThinkPad T14 Gen 4)
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023-12-30
source: TPMScan, CHES 2024; crocs-muni/tpmscan-dataset STM/1.769.0.0 performance.yaml (averages as published in docs/profiles.md)
covers: Create ECC P-256, GetRandom 32 bytes (TPMScan)
lacks: Sign ECDSA (no published average), CreatePrimary, PCR_Extend, StartAuthSession, ContextLoad, ContextSave, FlushContext, ReadPublic; no spread
transport-ms: 0
Create             password       ecc-p256        mean=168     # TPMScan
GetRandom          none           32b             mean=2.5     # TPMScan
