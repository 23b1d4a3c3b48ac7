#pragma once

#include "domain/Result.h"
#include "domain/observation/BrowserObservation.h"
#include "domain/observation/ElementFacts.h"
#include "domain/observation/ExtractRequest.h"
#include "domain/web/TestOverrides.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QUrl>

#include <optional>

namespace veetbot::CaptureAssembly {

// Turns the collector's answer to one capture call into an observation, its approval facts
// and its continuation state. Pure: it reads its arguments only, so it is unit-tested and
// fuzzed without a browser (fuzz/capture_fuzzer.cpp). Everything in the collector's answer
// derives from the page and is trusted for nothing until the whole observation validated;
// the answer is never echoed in an error.

// What the provider knows about the capture it asked for.
struct Request
{
    QUrl url;               // the page's URL when the capture started (a public HTTPS URL)
    QString revision;       // minted by the provider
    QString cursorToken;    // minted by the provider: the next window's opaque cursor
    QString evidencePrefix; // minted by the provider: the extraction's evidence refs
    std::optional<Readiness> readiness;
    // The window's first candidate position when the provider knows it (first window,
    // cursor); the collector's coverage must agree. nullopt for {after}.
    std::optional<int> expectedOffset = 0;
    // A focused read's UTF-8 offset into its region's text; nonzero only for a text
    // continuation, whose region text must be exactly `previousFocusText`.
    int focusTextOffset = 0;
    QByteArray previousFocusText;
    bool focusRequested = false;
    std::optional<ExtractRequest> extract; // browser.observe {extract}: rows typed here
    std::optional<QString> draft;          // the draft receipt the capture checked
    std::optional<ActionOutcome> action;   // the act this capture settles
};

// A focused read: the region and its whole captured text (UTF-8), against which a later text
// continuation is checked.
struct Focus
{
    QString regionRef;
    QByteArray text;
    friend bool operator==(const Focus &, const Focus &) = default;
};

struct Capture
{
    BrowserObservation observation;
    QHash<QString, ElementFacts> facts; // the approval sidecar, by element ref; never sent
    PageEvidence page;                  // likewise private
    std::optional<int> nextPosition;    // the candidate position the cursor stands for
    std::optional<Focus> focus;
    // Set when the capture checked a draft receipt: what the kept draft becomes (nullopt:
    // the receipt ended for good).
    std::optional<std::optional<QString>> nextDraft;
};

// One element's facts record as the collector writes it (act.js elementFacts), with the role,
// name and disabled state the observation recorded for it; nullopt when malformed or out of
// bounds. `page`: the page's URL, for the target's summary.
std::optional<ElementFacts> elementFactsRecord(const QJsonValue &record, const QString &role,
                                               const QString &name, bool disabled,
                                               const QUrl &page);

// The readable text of a capture answer as the collector gave it ("text", "text_coverage").
// A continuation of an unchanged page answers "text_unchanged": true instead of sending the
// same text again; the provider keeps the committed capture's and puts it back before
// assembling.
struct CapturedText
{
    QJsonValue text;
    QJsonValue coverage;
};
CapturedText capturedText(const QJsonObject &collector);
// Replaces "text_unchanged": true in a capture answer with `continued`, the text of the
// capture it continues. false when the answer claims unchanged text without a text to put
// back, or mixes the claim with text of its own; an answer without the claim is left as it is.
bool restoreUnchangedText(QJsonObject &collector, const std::optional<CapturedText> &continued);

// tool.browser.page_changed when a text continuation's region text changed since the focus
// captured it; tool.browser.output_invalid for anything else that is not exactly what the
// collector must answer.
Result<Capture> assemble(const QJsonObject &collector, const Request &request,
                         const TestOverrides &overrides);

} // namespace veetbot::CaptureAssembly
