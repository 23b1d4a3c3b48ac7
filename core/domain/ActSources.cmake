# browser.act's closed argument schema and the SHA-256 helper its argument digest uses
# (included from core/CMakeLists.txt).
target_sources(veetbot_core PRIVATE
  domain/ActRequest.cpp domain/ActRequest.h
  domain/ElementFacts.h
  domain/Sha256.cpp domain/Sha256.h
)
