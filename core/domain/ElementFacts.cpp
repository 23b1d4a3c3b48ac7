#include "ElementFacts.h"

#include <QRegularExpression>
#include <QStringList>

namespace veetbot {

FieldSecret fieldSecret(const ElementFacts &facts)
{
    if (facts.inputType.compare(QLatin1String("password"), Qt::CaseInsensitive) == 0)
        return FieldSecret::Password;
    static const QRegularExpression htmlSpace(QStringLiteral("[\\t\\n\\f\\r ]+"));
    const QStringList tokens = facts.autocomplete.toLower().split(htmlSpace, Qt::SkipEmptyParts);
    for (const QString &token : tokens) {
        if (token == QLatin1String("current-password") || token == QLatin1String("new-password"))
            return FieldSecret::Password;
        if (token == QLatin1String("one-time-code"))
            return FieldSecret::OneTimeCode;
        if (token.startsWith(QLatin1String("cc-")))
            return FieldSecret::Payment;
    }
    return FieldSecret::None;
}

bool refusesTyping(const ElementFacts &facts)
{
    const FieldSecret secret = fieldSecret(facts);
    return secret == FieldSecret::Password || secret == FieldSecret::OneTimeCode;
}

} // namespace veetbot
