#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QUuid>

#include <optional>

namespace veetbot {

// A sign-in ceremony as the ceremony routes carry it (CeremonyApi) and the service keeps it
// (service/server/CeremonyRegistry, docs/signin.md).

namespace ServiceCeremony {

// Remote: the owner signs in inside the service's own browser, through the workbench's view of
// it; its capability opens the view and its finish, never a hand-off. Device: the owner signs in
// on their own device and hands the session off once; its capability opens only the hand-off.
enum class Mode
{
    Remote,
    Device
};
// remote, device
QString modeName(Mode mode);
std::optional<Mode> modeNamed(const QString &name);

enum class State
{
    Open,      // waiting for its hand-off (device), or for the owner to sign in (remote)
    Verifying, // the hand-off, or the owner's finish, claimed it
    Ready,
    Failed, // with a code; the orchestration record calls it cancelled
    Cancelled,
    Expired
};
// open, verifying, ready, failed, cancelled, expired
QString stateName(State state);

// Whose ceremony it is: compared whole on every call but the hand-off.
struct Owner
{
    QUuid profileId;
    QString tenant;
    QString principal;
    QString providerReference;
    friend bool operator==(const Owner &, const Owner &) = default;
};

struct Record
{
    QString id;
    Owner owner;
    Mode mode = Mode::Remote;
    QStringList origins; // the profile's allowed origins when it began
    QDateTime expiresAt;
    State state = State::Open;
    QString code; // Failed only: a fixed code
    // Ready only: the masked account a site verification definition confirmed
    // (SiteDefinition::accountLabel), or empty without a definition.
    QString account;
    QDateTime endedAt;
};

struct Begun
{
    Record ceremony;
    QString capability; // returned once; never kept
};

} // namespace ServiceCeremony

} // namespace veetbot
