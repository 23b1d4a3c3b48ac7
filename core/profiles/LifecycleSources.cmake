target_sources(veetbot_core PRIVATE
  profiles/LocalConfiguration.cpp profiles/LocalConfiguration.h
)
target_sources(veetbot_core PRIVATE
  profiles/ProfileService.cpp profiles/ProfileService.h
  ports/BrowserProfileControlPlane.h
)
target_sources(veetbot_core PRIVATE
  vault/VaultControlPlane.cpp vault/VaultControlPlane.h
)
target_sources(veetbot_core PRIVATE
  profiles/RuleBasedProfileRepository.cpp profiles/RuleBasedProfileRepository.h
)
