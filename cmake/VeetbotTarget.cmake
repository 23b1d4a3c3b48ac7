# Compile options shared by every target of the project, applied per target.
function(veetbot_target_defaults target)
  # A dropped Result (domain/Result.h is [[nodiscard]]) fails the build.
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers
                                           -Werror=unused-result)
  target_compile_definitions(${target} PRIVATE
    QT_NO_CONTEXTLESS_CONNECT
    QT_NO_URL_CAST_FROM_STRING
    QT_USE_QSTRINGBUILDER
    QT_NO_FOREACH
    QT_NO_KEYWORDS)
endfunction()
