#pragma once

#include "domain/profile/BrowserProfile.h"

#include <QCoreApplication>
#include <QLabel>

namespace veetbot {

// The heading both sign-in windows open with: "Sign in to <the website's first origin>", larger
// and bold.
inline QLabel *signInHeading(const BrowserProfile &profile, QWidget *parent)
{
    const QString site = profile.allowedOrigins.isEmpty()
                             ? QString()
                             : profile.allowedOrigins.constFirst().toString();
    auto *heading =
        new QLabel(QCoreApplication::translate("SignIn", "Sign in to %1").arg(site), parent);
    heading->setTextFormat(Qt::PlainText);
    QFont font = heading->font();
    font.setPointSizeF(font.pointSizeF() * 1.3);
    font.setBold(true);
    heading->setFont(font);
    return heading;
}

} // namespace veetbot
