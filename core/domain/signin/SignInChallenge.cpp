#include "SignInChallenge.h"

#include <QStringList>

namespace veetbot {

bool showsSignInChallenge(const QList<ElementFacts> &elements, const PageEvidence &page)
{
    if (page.challengeFrames > 0)
        return true;
    for (const ElementFacts &facts : elements) {
        const FieldSecret secret = fieldSecret(facts);
        if (secret == FieldSecret::Password || secret == FieldSecret::OneTimeCode)
            return true;
        const QStringList tokens =
            facts.autocomplete.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (tokens.contains(QLatin1String("username")) ||
            tokens.contains(QLatin1String("webauthn")))
            return true;
    }
    return false;
}

} // namespace veetbot
