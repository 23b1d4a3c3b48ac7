#pragma once

#include "Extraction.h"
#include "domain/Result.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace veetbot {

class TestOverrides;

// Bounds of the canonical observation; a capture beyond any of them does not validate.
namespace ObservationBounds {
inline constexpr int kMaxElements = 256;
inline constexpr int kMaxCandidates = 4096;          // scanned per window
inline constexpr int kMaxCandidatePositions = 65536; // positions 0..65535; the walk stops there
inline constexpr int kMaxNameUnits = 1024;           // UTF-16 units, canonical (projection: 256 B)
inline constexpr int kMaxTitleUnits = 1024;          // UTF-16 units, canonical (projection: 128 B)
inline constexpr int kMaxTextBytes = 256 * 1024;     // UTF-8 bytes of readable text
inline constexpr int kMaxDraftCodePoints = 4096;     // a confirmed submitted draft
inline constexpr int kMaxTextNodes = 8192;
inline constexpr int kMaxTextUnits = 262144;
inline constexpr int kMaxRefUnits = 128;
inline constexpr int kMaxRoleUnits = 64;
inline constexpr int kMaxRegions = 32;           // whole region records
inline constexpr int kMaxRegionScanNodes = 8192; // main-document elements scanned for regions
inline constexpr int kMaxSummaryUnits = 512;     // UTF-16 units of one region summary
} // namespace ObservationBounds

enum class Readiness
{
    DomQuiet,
    BoundExpired
};
QString readinessString(Readiness readiness);

// true / false / "mixed"; None when the control has no checked state.
enum class CheckedState
{
    None,
    False,
    True,
    Mixed
};

struct ElementState
{
    bool disabled = false;
    CheckedState checked = CheckedState::None;
    std::optional<bool> selected;
    std::optional<bool> expanded;
    bool required = false;
    friend bool operator==(const ElementState &, const ElementState &) = default;
};

// One visible interactive control. Never carries an input value.
struct ElementRecord
{
    QString ref;  // opaque, unique to the capture that produced it
    QString role; // lower-case ARIA role
    QString name; // accessible name, at most kMaxNameUnits UTF-16 units
    ElementState state;
    friend bool operator==(const ElementRecord &, const ElementRecord &) = default;
};

struct TextCoverage
{
    int version = 1;
    QString scope = QStringLiteral("main_document_open_shadow_roots");
    int scannedNodes = 0;
    int scannedTextUnits = 0;
    bool nodeLimitReached = false;
    bool textLimitReached = false;
    qint64 omittedTextBytes = 0;
    friend bool operator==(const TextCoverage &, const TextCoverage &) = default;
};

// The candidate window of one capture: it starts at candidate position candidateOffset and checked
// scannedCandidates candidates. nextCursor is the provider's opaque continuation (32-128 units) or
// null when no candidate remains or a bound stopped the walk; scanLimitReached says a bound (65,536
// positions, or the element-visit bound) stopped it, so candidates may remain that no continuation
// reaches.
struct CandidateCoverage
{
    int candidateOffset = 0;
    int scannedCandidates = 0;
    std::optional<QString> nextCursor;
    bool scanLimitReached = false;
    friend bool operator==(const CandidateCoverage &, const CandidateCoverage &) = default;
};

// One visible semantic region: evidence only. Its ref binds to the revision, selects the region for
// a focused read, and is never an action target or a continuation anchor.
struct RegionRecord
{
    QString ref;
    QString kind;    // dialog | alert | status | form | heading | main | section
    QString name;    // accessible name (a heading's text), at most kMaxNameUnits
    int level = 0;   // headings: 1-9; 0 for every other kind
    QString summary; // readable text on one line, at most kMaxSummaryUnits; "" for headings
    bool summaryTruncated = false;
    friend bool operator==(const RegionRecord &, const RegionRecord &) = default;
};

struct RegionCoverage
{
    int version = 1;
    QString scope = QStringLiteral("main_document");
    int scannedNodes = 0;
    bool scanExhausted = false; // the 8,192-node scan bound stopped the scan
    int omittedRegions = 0;     // found in the scanned prefix, not retained
    friend bool operator==(const RegionCoverage &, const RegionCoverage &) = default;
};

// A focused read: the region the controls and text belong to, where the text starts in the region's
// captured text and how long that is (UTF-8 bytes).
struct FocusState
{
    QString regionRef; // the focused region's ref in this revision (one of `regions`)
    int textOffset = 0;
    int textBytes = 0;
    friend bool operator==(const FocusState &, const FocusState &) = default;
};

// The answer of browser.observe {wait_for}.
struct WaitOutcome
{
    enum class Status
    {
        Satisfied,
        Ambiguous,
        NotObserved
    };
    Status status = Status::NotObserved;
    QString scope = QStringLiteral("first_window");
    int observations = 0; // captures read, the first included (at most 21)
    qint64 elapsedMs = 0;
    friend bool operator==(const WaitOutcome &, const WaitOutcome &) = default;
};
QString waitStatusString(WaitOutcome::Status status);

// What a browser.act that returned this observation did (docs/actions.md "Dispatch"):
// content-free. `dispatched` is false only for a check whose state already matched (nothing
// was sent); `scrolledPx` is the measured scroll distance of a scroll (CSS pixels, positive is
// down).
struct ActionOutcome
{
    QString kind; // "click", "type", "select", "check", "press", "scroll"
    bool dispatched = true;
    std::optional<int> scrolledPx; // scroll only
    friend bool operator==(const ActionOutcome &, const ActionOutcome &) = default;
};

// The canonical observation: the only thing that crosses the BrowserProvider port. No HTML,
// input values, cookies, headers, console text or provider diagnostics.
struct BrowserObservation
{
    QUrl url;
    QString title;
    QString revision;
    std::optional<Readiness> readiness; // navigate/act only
    QString text;
    TextCoverage textCoverage;
    QList<ElementRecord> elements;
    CandidateCoverage coverage;
    // Regions and their coverage travel together; both absent for providers without them.
    QList<RegionRecord> regions;
    std::optional<RegionCoverage> regionCoverage;
    std::optional<FocusState> focus;      // focused reads only
    std::optional<WaitOutcome> waitFor;   // wait_for reads only
    std::optional<Extraction> extraction; // browser.observe {extract} only
    std::optional<ActionOutcome> action;  // browser.act only
    // The draft receipt: the text the model's own approved rich-text type submitted, echoed only
    // while the same editor still renders exactly it. Never page text the model did not send. At
    // most kMaxDraftCodePoints, and with `text` within kMaxTextBytes.
    std::optional<QString> confirmedDraft;

    QJsonObject toJson() const;
    // Strict: every field present with the right type and within its bounds, the URL a
    // public HTTPS URL, refs unique. Anything else is tool.browser.output_invalid.
    static Result<BrowserObservation> fromJson(const QJsonObject &json,
                                               const TestOverrides &overrides);
    friend bool operator==(const BrowserObservation &, const BrowserObservation &) = default;
};

// A fresh random revision of at least 128 bits (OpenSSL RAND_bytes), base64url.
QString newRevision();
// A fresh random token of `bytes` random bytes, base64url without padding.
QString randomToken(int bytes);

} // namespace veetbot
