tpmtrace-profile 1
name: ifx-slb9670-tpmscan
vendor: IFX
chip: SLB9670
firmware: 7.85.17.51968
bus: SPI (Intel ArcherCity board)
measured-by: TPMScan dataset (tpm2-algtest), CHES 2024
date: 2023-03-16
source: TPMScan, "A wide-scale study of security-relevant properties of TPM 2.0 chips", CHES 2024; crocs-muni/tpmscan-dataset IFX/7.85.17.51968 performance.yaml (averages rounded as published in docs/profiles.md)
source: wolfTPM README benchmark table (SLB9670): CreatePrimary-derived ECC P-256 key 231 ms, ECDSA sign 68.9 ms
covers: Create ECC P-256, GetRandom 32 bytes, Sign ECDSA P-256 (TPMScan); CreatePrimary ECC P-256 (wolfTPM)
lacks: PCR_Extend, StartAuthSession, ContextLoad, ContextSave, FlushContext, ReadPublic; no spread (averages only; import the yaml for min/max)
transport-ms: 0
Create             password       ecc-p256        mean=219     # TPMScan avg 218.95
GetRandom          none           32b             mean=4       # TPMScan avg 4.00
Sign               password       ecc-p256.ecdsa  mean=71.7    # TPMScan; wolfTPM gives 68.9
CreatePrimary      password       ecc-p256        mean=231     # wolfTPM README
