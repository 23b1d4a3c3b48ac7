# The encrypted profile-material store (included from core/CMakeLists.txt).
target_sources(veetbot_core PRIVATE
  vault/VaultError.h
  vault/AesGcm.cpp vault/AesGcm.h
  vault/StrictJson.cpp vault/StrictJson.h
  vault/CanonicalJson.cpp vault/CanonicalJson.h
  vault/Envelope.cpp vault/Envelope.h
  vault/EncryptedProfileStore.cpp vault/EncryptedProfileStore.h
  vault/ProcessHardening.cpp vault/ProcessHardening.h
  storage/FileDescriptor.h
  storage/PrivateDirectory.cpp storage/PrivateDirectory.h
)
