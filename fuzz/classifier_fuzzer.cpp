// libFuzzer target for the action-consequence classifier and its text normaliser: any text a
// page could put in an element's label sources, dialog, options or target path is read
// without a crash or an ICU failure, deterministically, into case-folded words without
// invisible characters; and the classifier stays deny-biased: a text that names a
// consequence makes the element's classification named wherever it sits, and labels that all
// read as the same routine word make a plain button routine.
//
// Input: fields separated by NUL bytes, as UTF-8 (role, name, visible text, dialog name,
// label, selected option, target URL). The first field alone, and the whole input read as
// UTF-16 (lone surrogates included), also go through every text check.

#include "domain/action/ActRequest.h"
#include "domain/action/ActionConsequence.h"
#include "domain/observation/ElementFacts.h"

#include <QList>
#include <QUrl>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace veetbot;

namespace {

// Names the broken property's line before aborting, so a finding says which rule it broke.
void require(bool condition, int line = __builtin_LINE())
{
    if (!condition) {
        std::fprintf(stderr, "classifier_fuzzer.cpp:%d: property failed\n", line);
        std::abort();
    }
}

bool namesUngrantable(BrowserActionConsequence consequence)
{
    return isNamedConsequence(consequence) && !isTaskGrantableConsequence(consequence);
}

const QString kRevision = QStringLiteral("r-fuzz-0123456789abcdef0123456789ab");
const QString kRef = QStringLiteral("c1.0");
const QUrl kPage(QStringLiteral("https://shop.acme-store.com/catalog"));

void checkText(const QString &text)
{
    const QList<ConsequenceText::Reading> readings = ConsequenceText::readings(text, false);
    require(readings == ConsequenceText::readings(text, false));
    for (const ConsequenceText::Reading &reading : readings) {
        for (const QString &word : reading.words) {
            require(!word.isEmpty());
            for (const char32_t c : QStringView(word).toUcs4()) {
                require(QChar::category(c) != QChar::Other_Format);
                require(!QChar::isSpace(c));
            }
        }
    }
    const ConsequenceText::TextVerdict verdict = ConsequenceText::read(text);
    require(!(verdict.named && verdict.routine));
    require(verdict.routineText.isEmpty() || verdict.routine);
    require(verdict.named.has_value() == (verdict.namedBy != TextReading::None));

    // Wherever a naming text sits, the action is named; elsewhere it never makes one routine
    // unless every word was routine.
    const ActRequest click = *ActRequest::click(kRevision, kRef);
    ElementFacts inName{QStringLiteral("button"), text, {}, {}, {}, {}};
    ElementFacts inDialog{QStringLiteral("button"), QStringLiteral("Next"), {}, text, {}, {}};
    for (const ElementFacts &facts : {inName, inDialog}) {
        const ActionClassification got = classifyAction(facts, click);
        require(got == classifyAction(facts, click));
        if (verdict.named)
            require(got.consequence == *verdict.named);
        if (got.consequence == BrowserActionConsequence::Routine)
            require(verdict.routine || text.trimmed().isEmpty());
        require(isNamedConsequence(got.consequence) == (got.source != ConsequenceSource::None));
    }
    if (everyLabelReadsSameRoutineWord(inName))
        require(classifyAction(inName, click).consequence == BrowserActionConsequence::Routine);

    // A path segment that names a consequence a task grant cannot cover makes it sensitive; one
    // named for a grantable change (/archive, /save, /confirm) is judged control by control.
    const BrowserActionConsequence segment = pathSegmentConsequence(text);
    require(!namesUngrantable(segment) || isSensitivePathSegment(text));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // Facts hold at most 1,024 units per text and the reader takes at most 4,096: longer inputs
    // only slow the search down.
    size = std::min<size_t>(size, 8192);
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QList<QByteArray> fields = bytes.split('\0');
    checkText(QString::fromUtf8(fields.first()));
    checkText(QString(reinterpret_cast<const QChar *>(data), qsizetype(size / 2)));

    // The same fields as one element's facts.
    const auto field = [&fields](qsizetype i) {
        return i < fields.size() ? QString::fromUtf8(fields.at(i)) : QString();
    };
    ElementFacts facts{field(0), field(1), field(2), field(3), {}, {}};
    if (!field(4).isEmpty())
        facts.labels = {LabelText{LabelSource::AriaLabel, field(4), fields.size() % 2 == 0}};
    facts.selectedOption = field(5);
    facts.fieldKind = FieldKind(int(size % 19));
    facts.target = navigationTargetOf(QUrl(field(6)), kPage, size % 3 == 0);
    require(facts.target->firstSegment.size() <= ElementFacts::kMaxSegmentUnits);
    require(!namesUngrantable(facts.target->pathConsequence) || facts.target->sensitive);
    require(facts.target->pathConsequence != BrowserActionConsequence::Routine);
    QList<ActRequest> requests{*ActRequest::click(kRevision, kRef),
                               *ActRequest::press(kRevision, kRef, ActRequest::Key::Enter)};
    if (const Result<ActRequest> select = ActRequest::select(kRevision, kRef, field(1)); select)
        requests.append(*select);
    for (const ActRequest &request : requests) {
        const ActionClassification got = classifyAction(facts, request);
        require(got == classifyAction(facts, request));
        require(isNamedConsequence(got.consequence) == (got.source != ConsequenceSource::None));
        // A download is always named.
        if (facts.target->download)
            require(isNamedConsequence(got.consequence));
    }
    return 0;
}
