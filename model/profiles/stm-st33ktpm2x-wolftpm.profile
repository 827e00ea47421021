tpmtrace-profile 1
name: stm-st33ktpm2x-wolftpm
vendor: STM
chip: ST33KTPM2X
measured-by: wolfSSL (wolfTPM benchmark)
source: wolfTPM README benchmark table (ST33KTPM2X): CreatePrimary-derived ECC P-256 key 89 ms, ECDSA P-256 sign 25.3 ms
covers: CreatePrimary ECC P-256, Sign ECDSA P-256
lacks: everything else (PCR_Extend, sessions, contexts, GetRandom); no spread; firmware, bus and date not stated
transport-ms: 0
CreatePrimary      password       ecc-p256        mean=89      # wolfTPM README
Sign               password       ecc-p256.ecdsa  mean=25.3    # wolfTPM README
