#pragma once

#include "ports/BrowserProvider.h"

#include <QJsonObject>
#include <QLatin1String>
#include <QList>
#include <QString>

#include <optional>

namespace veetbot {

// The tool contract: how a tool may touch the world.
enum class SideEffect
{
    NetworkRead,
    ExternalWrite
};
enum class Risk
{
    Low,
    High
};
enum class Idempotency
{
    ReadOnly,
    NonIdempotent
};

// "NETWORK_READ", "EXTERNAL_WRITE", "LOW", "HIGH", "READ_ONLY", "NON_IDEMPOTENT".
QString sideEffectString(SideEffect sideEffect);
QString riskString(Risk risk);
QString idempotencyString(Idempotency idempotency);

struct ToolClassification
{
    SideEffect sideEffect = SideEffect::ExternalWrite;
    Risk risk = Risk::High;
    Idempotency idempotency = Idempotency::NonIdempotent;
    friend bool operator==(const ToolClassification &, const ToolClassification &) = default;
};

// One versioned tool as a client lists it: the name, the version, the classification and the
// closed JSON Schema (draft 2020-12 keywords) of its arguments.
struct ToolDescriptor
{
    QString name;
    QString version;
    ToolClassification classification;
    QJsonObject inputSchema;
    friend bool operator==(const ToolDescriptor &, const ToolDescriptor &) = default;
};

// The browser tools, version 1.7.0, and the fixed classification of each.
namespace BrowserTools {
inline constexpr QLatin1String kNavigate("browser.navigate");
inline constexpr QLatin1String kObserve("browser.observe");
inline constexpr QLatin1String kAct("browser.act");
inline constexpr QLatin1String kVersion("1.7.0");

// The fixed classification of the named browser tool; nullopt for any other name.
// Policy compares a descriptor against this, never against itself.
std::optional<ToolClassification> specifiedClassification(const QString &name);

// The argument schemas. Lengths are the parsers' bounds (refs, revisions and cursors are
// ASCII tokens minted by the provider, so code points and UTF-16 units agree; typed text is
// bounded in code points as JSON Schema counts them). What a schema cannot say (column names
// unique within one extract request) the parser still refuses.
QJsonObject navigateSchema();
// browser.navigate's arguments as the schema takes them: {url, discard_unsaved?}, the URL a
// string of 1 to PublicUrl::kMaxUrlBytes (parsed strictly, not yet validated), the flag a
// boolean. Anything else is tool.invalid_arguments. Never guarded: the caller decides.
Result<NavigateRequest> parseNavigate(const QJsonObject &arguments);
// Exactly the modes ObserveRequest::fromJson accepts that the capabilities admit: {},
// {wait_for} and the region focus always; {after} and {cursor} with `expand`; {extract}
// with `extract`.
QJsonObject observeSchema(const ProviderCapabilities &capabilities);
// Exactly what ActRequest::fromJson accepts.
QJsonObject actSchema();
} // namespace BrowserTools

// The tools one composition offers. Default off: a registry with no bound provider holds no
// browser tool (and so nothing can start a browser); a bound provider contributes only the
// tools whose capability it declares (navigate, observe, act). The registry never calls the
// provider: it reads capabilities() once, at composition.
class ToolRegistry
{
public:
    // No provider: no browser tool.
    ToolRegistry() = default;
    // The tools the provider declares; nullptr is the same as no provider.
    static ToolRegistry forProvider(const BrowserProvider *provider);
    static ToolRegistry forCapabilities(const ProviderCapabilities &capabilities);

    // In a fixed order: navigate, observe, act.
    const QList<ToolDescriptor> &tools() const { return m_tools; }
    // The registered tool of that exact name, or nullptr.
    const ToolDescriptor *find(const QString &name) const;
    bool hasBoundProvider() const { return m_bound; }

private:
    QList<ToolDescriptor> m_tools;
    bool m_bound = false;
};

} // namespace veetbot
