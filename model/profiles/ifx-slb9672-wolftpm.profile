tpmtrace-profile 1
name: ifx-slb9672-wolftpm
vendor: IFX
chip: SLB9672
measured-by: wolfSSL (wolfTPM benchmark)
source: wolfTPM README benchmark table (SLB9672): CreatePrimary-derived ECC P-256 key 136 ms, ECDSA P-256 sign 35.6 ms
covers: CreatePrimary ECC P-256, Sign ECDSA P-256
lacks: everything else (PCR_Extend, sessions, contexts, GetRandom); no spread; firmware, bus and date not stated
transport-ms: 0
CreatePrimary      password       ecc-p256        mean=136     # wolfTPM README
Sign               password       ecc-p256.ecdsa  mean=35.6    # wolfTPM README
