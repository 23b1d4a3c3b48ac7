#pragma once

#include "domain/Result.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/observation/ElementFacts.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>
#include <QUuid>

#include <functional>
#include <optional>

namespace veetbot {

class Origin;
class TestOverrides;

// Site verification definitions (docs/signin.md "Which account", decision 0023): for a
// profile, the page only a signed-in visitor sees (a literal protected path), the evidence that
// it shows the protected state, and the evidence of which account is signed in. The profile
// service reads them from one private file at start (VEETBOT_PROFILE_VERIFICATION_FILE) and
// checks them at every sign-in and before every lease is published. The definitions are the
// owner's configuration: they hold no credential, selector or script.
struct SiteDefinition
{
    static constexpr int kMaxTextUnits = 256;
    static constexpr int kMaxIdUnits = 64;
    static constexpr int kMaxPathUnits = 512;

    // The protected state: a whole line of the page's visible text, or exactly one region of
    // this kind and exact name.
    struct Ready
    {
        enum class Kind
        {
            Text,
            Region
        };
        Kind kind = Kind::Text;
        QString text;       // Text
        QString regionKind; // Region: dialog, alert, status, form, heading, main or section
        QString name;       // Region
        friend bool operator==(const Ready &, const Ready &) = default;
    };
    // The account: exactly one button or link with this exact accessible name whose visible
    // text, white space collapsed, is exactly `text` (read from the browser's private facts of
    // the same capture, whole, not a field), or exactly one region of this kind and name.
    struct Account
    {
        enum class Kind
        {
            Control,
            Region
        };
        Kind kind = Kind::Control;
        QString role; // Control: button or link
        QString name;
        QString text;       // Control: the visible text
        QString regionKind; // Region
        friend bool operator==(const Account &, const Account &) = default;
    };

    QString id;
    int version = 1;
    QUuid profileId;
    QString origin; // as Origin::toString() writes it
    QString protectedPath;
    Ready ready;
    Account account;

    static constexpr int kMaxAccountLabelLength = 64;
    // What Website Access says the profile is signed in as: the account evidence (the control's
    // visible text, or the region's name) masked, as the service reports a confirmed account
    // (spec 003: only a masked account label is shown). Each word that is an e-mail address
    // keeps the first character of its local part and its domain ("d•••@shop.de"); a label
    // without one keeps its first character and, from four characters on, its last
    // ("A•••e"); at most 64 characters.
    QString accountLabel() const;
    // The protected page on `origin` (the profile's origin the definition names).
    QUrl protectedUrl() const;

    friend bool operator==(const SiteDefinition &, const SiteDefinition &) = default;
};

// The file's catalog: {"version": 1, "sites": [definition...]}, strict JSON (duplicate names,
// unknown members and wrong types refused), at most 64 KiB and 32 definitions, one per profile.
class SiteCatalog
{
public:
    static constexpr qsizetype kMaxFileBytes = 64 * 1024;
    static constexpr int kMaxSites = 32;

    // site_verification.invalid with a fixed message naming the rule, never the text.
    static Result<SiteCatalog> parse(const QByteArray &json, const TestOverrides &overrides);

    const QList<SiteDefinition> &sites() const { return m_sites; }
    const SiteDefinition *forProfile(const QUuid &profile) const;

private:
    QList<SiteDefinition> m_sites;
};

// What one observation of the protected page shows. Ready and account evidence are read
// independently; an observation whose text or candidates a bound cut short confirms nothing.
struct SiteReading
{
    enum class Verdict
    {
        Verified,    // the protected state and the intended account
        NotReady,    // no protected state (signed out, moved, interrupted)
        WrongAccount // the protected state, but not the intended account
    };
    Verdict verdict = Verdict::NotReady;
    bool readySeen = false;
    bool accountSeen = false;
};
using ElementFactsLookup = std::function<std::optional<ElementFacts>(const QString &ref)>;
SiteReading readSite(const SiteDefinition &definition, const BrowserObservation &observation,
                     const ElementFactsLookup &facts);

// The fixed errors of the file: site_verification.file_not_private (not an absolute path to a
// 0600 regular file of this user, or a symbolic link), site_verification.invalid.
Error siteVerificationError(const QString &code);

} // namespace veetbot
