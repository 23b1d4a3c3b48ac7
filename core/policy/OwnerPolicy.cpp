#include "OwnerPolicy.h"

#include "domain/Sha256.h"

namespace veetbot {

namespace {
// Advances whenever a rule that decides what runs without a fresh approval changes (the
// classifier's vocabulary, coverage, the scroll bound), so grants made under the old rules end.
constexpr QLatin1String kPolicyRules{"veetbot-policy-rules-1"};
} // namespace

QString agentVersion(const QString &programVersion)
{
    return QStringLiteral("veetbot ") + programVersion;
}

QString PolicySettings::version() const
{
    const QString text = QStringLiteral("%1\nallow_scroll=%2\nordinary_interaction=%3\n"
                                        "task_grants=%4\n")
                             .arg(kPolicyRules)
                             .arg(int(allowScroll))
                             .arg(int(ordinaryInteraction))
                             .arg(int(taskGrants));
    return Sha256::hex(text.toUtf8());
}

} // namespace veetbot
