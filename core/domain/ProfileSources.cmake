# Browser-profile metadata: the domain type, its lifecycle rules and the repository port.
target_sources(veetbot_core PRIVATE
  domain/BrowserProfile.cpp domain/BrowserProfile.h
  ports/BrowserProfileRepository.h
)
