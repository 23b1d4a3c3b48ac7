# The keyrings: version grammar, key-directory loader (a pure function, fuzzed), the key
# directory on disk and the directory keyring served from it.
target_sources(veetbot_core PRIVATE
  vault/KeyringError.cpp vault/KeyringError.h
  vault/KeyVersion.cpp vault/KeyVersion.h
  vault/KeyDirectoryLoader.cpp vault/KeyDirectoryLoader.h
  vault/KeyDirectory.cpp vault/KeyDirectory.h
  vault/DirectoryKeyring.cpp vault/DirectoryKeyring.h
)
