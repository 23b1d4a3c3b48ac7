#include "GrantCoverage.h"

#include "ApprovalView.h"

namespace veetbot::GrantCoverage {

std::optional<TextRefusal> refuseTypedText(const QString &text)
{
    const QList<uint> codePoints = text.toUcs4();
    if (codePoints.size() > kMaxTypedCharacters)
        return TextRefusal::TooLong;
    if (text.contains(QLatin1Char('@')) || text.contains(QChar(0xFF20))) // @ and fullwidth @
        return TextRefusal::EmailOrHandle;
    if (text.contains(QLatin1String("://")) ||
        text.contains(QLatin1String("www."), Qt::CaseInsensitive))
        return TextRefusal::Address;
    int run = 0;
    for (const uint c : codePoints) {
        run = QChar::isDigit(char32_t(c)) ? run + 1 : 0;
        if (run >= 4)
            return TextRefusal::DigitRun;
    }
    if (CredentialShape::find(text))
        return TextRefusal::CredentialShape;
    return std::nullopt;
}

QString textRefusalString(TextRefusal refusal)
{
    switch (refusal) {
    case TextRefusal::TooLong:
        return QStringLiteral("too_long");
    case TextRefusal::EmailOrHandle:
        return QStringLiteral("email_or_handle");
    case TextRefusal::Address:
        return QStringLiteral("address");
    case TextRefusal::DigitRun:
        return QStringLiteral("digit_run");
    case TextRefusal::CredentialShape:
        return QStringLiteral("credential_shape");
    }
    return QStringLiteral("credential_shape");
}

} // namespace veetbot::GrantCoverage
