// Reading a text as it is displayed, for the consequence classifier: Unicode normalisation,
// the bidi reorderings a reader may see, invisible characters, camel-case humps, lookalike
// letters and the readings that come of them (ConsequenceText in ActionConsequence.h).

#include "ConsequenceDetail.h"

#include <unicode/ubidi.h>

#include <memory>

namespace veetbot {

namespace ConsequenceDetail {

namespace {

// ---------------------------------------------------------------- normalisation

void appendCodePoint(QString &out, char32_t c)
{
    if (QChar::requiresSurrogates(c)) {
        out.append(QChar(QChar::highSurrogate(c)));
        out.append(QChar(QChar::lowSurrogate(c)));
    } else {
        out.append(QChar(char16_t(c)));
    }
}

bool isBidiRelevant(char32_t c)
{
    switch (QChar::direction(c)) {
    case QChar::DirR:
    case QChar::DirAL:
    case QChar::DirRLE:
    case QChar::DirRLO:
    case QChar::DirLRE:
    case QChar::DirLRO:
    case QChar::DirPDF:
    case QChar::DirRLI:
    case QChar::DirLRI:
    case QChar::DirFSI:
    case QChar::DirPDI:
        return true;
    default:
        return false;
    }
}

struct BidiCloser
{
    void operator()(UBiDi *bidi) const { ubidi_close(bidi); }
};

// The text in the order the bidirectional algorithm displays it in a paragraph of the given
// level (0: left to right, 1: right to left), its controls removed. On any ICU failure the
// text as written, which is read anyway.
QString displayedOrder(const QString &text, UBiDiLevel paragraphLevel)
{
    UErrorCode status = U_ZERO_ERROR;
    const std::unique_ptr<UBiDi, BidiCloser> bidi(
        ubidi_openSized(int32_t(text.size()), 0, &status));
    if (U_FAILURE(status))
        return text;
    ubidi_setPara(bidi.get(), reinterpret_cast<const UChar *>(text.utf16()), int32_t(text.size()),
                  paragraphLevel, nullptr, &status);
    if (U_FAILURE(status))
        return text;
    // Removing controls only shortens the text.
    QString out(text.size(), Qt::Uninitialized);
    const int32_t length =
        ubidi_writeReordered(bidi.get(), reinterpret_cast<UChar *>(out.data()), int32_t(out.size()),
                             UBIDI_REMOVE_BIDI_CONTROLS, &status);
    if (U_FAILURE(status) || length < 0 || length > out.size())
        return text;
    out.truncate(length);
    return out;
}

// Characters that take no space on screen: format characters (zero-width spaces and joiners,
// the soft hyphen, bidi controls, tags), variation selectors, the combining grapheme joiner,
// Hangul fillers; and apostrophes, so "can't" reads as one word.
bool isInvisibleOrApostrophe(char32_t c)
{
    if (QChar::category(c) == QChar::Other_Format)
        return true;
    if ((c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF))
        return true;
    switch (c) {
    case 0x034F: // combining grapheme joiner
    case 0x115F: // Hangul fillers
    case 0x1160:
    case 0x3164:
    case 0xFFA0:
    case 0x180E: // Mongolian vowel separator
    case U'\'':
    case 0x2019: // right single quotation mark
    case 0x02BC: // modifier letter apostrophe
    case 0xFF07: // fullwidth apostrophe
        return true;
    default:
        return false;
    }
}

} // namespace

QString withoutInvisible(QStringView text)
{
    QString out;
    out.reserve(text.size());
    for (const char32_t c : QStringView(text).toUcs4()) {
        if (!isInvisibleOrApostrophe(c))
            appendCodePoint(out, c);
    }
    return out;
}

// Spaces between camel-case humps: "deleteAccount" -> "delete Account", "APIKey" -> "API Key".
namespace {

QString splitCamel(const QString &text)
{
    QString out;
    out.reserve(text.size() + 8);
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (i > 0 && c.isUpper()) {
            const QChar previous = text.at(i - 1);
            const bool nextLower = i + 1 < text.size() && text.at(i + 1).isLower();
            if (previous.isLower() || (previous.isUpper() && nextLower))
                out.append(u' ');
        }
        out.append(c);
    }
    return out;
}

enum class DigitFold
{
    None,
    OneAsL,
    OneAsI
};

// Lookalikes as Latin letters; with digit folding, 0 as o and 1 as l or i.
QString foldLookalikes(const QString &text, DigitFold digits)
{
    // Compatibility decomposition first, so fullwidth and mathematical letters are Latin and
    // marks on lookalikes come off.
    const QString decomposed = text.normalized(QString::NormalizationForm_KD);
    QString out;
    out.reserve(decomposed.size());
    const QHash<char16_t, QChar> &table = lookalikes();
    for (const char32_t c : QStringView(decomposed).toUcs4()) {
        const QChar::Category category = QChar::category(c);
        if (category == QChar::Mark_NonSpacing || category == QChar::Mark_Enclosing)
            continue;
        // The letter itself, else its case-folded form (a capital whose small letter is a
        // lookalike).
        const char32_t lower = QChar::toCaseFolded(c);
        if (c <= 0xFFFF && lower <= 0xFFFF) {
            auto it = table.constFind(char16_t(c));
            if (it == table.constEnd())
                it = table.constFind(char16_t(lower));
            if (it != table.constEnd()) {
                out.append(*it);
                continue;
            }
        }
        if (digits != DigitFold::None && c == U'0') {
            out.append(u'o');
            continue;
        }
        if (digits != DigitFold::None && c == U'1') {
            out.append(digits == DigitFold::OneAsL ? u'l' : u'i');
            continue;
        }
        appendCodePoint(out, c);
    }
    return out;
}

// Case folded and NFKC-normalised words: runs of letters, digits and marks; everything else
// separates.
} // namespace

QStringList wordsOf(const QString &text)
{
    const QString folded = text.normalized(QString::NormalizationForm_KC)
                               .toCaseFolded()
                               .normalized(QString::NormalizationForm_KC);
    QStringList words;
    QString word;
    for (const char32_t c : QStringView(folded).toUcs4()) {
        const QChar::Category category = QChar::category(c);
        const bool wordChar = QChar::isLetterOrNumber(c) || category == QChar::Mark_NonSpacing ||
                              category == QChar::Mark_SpacingCombining ||
                              category == QChar::Mark_Enclosing;
        if (wordChar) {
            appendCodePoint(word, c);
        } else if (!word.isEmpty()) {
            words.append(word);
            word.clear();
        }
    }
    if (!word.isEmpty())
        words.append(word);
    return words;
}

} // namespace ConsequenceDetail

using namespace ConsequenceDetail;
using C = BrowserActionConsequence;

// ---------------------------------------------------------------- text

namespace ConsequenceText {

QList<Reading> readings(QStringView text, bool splitCamelCase)
{
    const QString source = text.left(kMaxReadUnits).toString();
    struct Ordering
    {
        QString text;
        bool displayed;
    };
    QList<Ordering> orderings{{source, false}};
    bool bidi = false;
    for (const char32_t c : QStringView(source).toUcs4())
        bidi = bidi || isBidiRelevant(c);
    if (bidi) {
        orderings.append({displayedOrder(source, 0), true});
        orderings.append({displayedOrder(source, 1), true});
    }
    if (splitCamelCase) {
        const qsizetype n = orderings.size();
        for (qsizetype i = 0; i < n; ++i)
            orderings.append({splitCamel(orderings.at(i).text), orderings.at(i).displayed});
    }

    QList<Reading> out;
    auto add = [&out](TextReading kind, QStringList words, bool digitsFolded) {
        for (const Reading &existing : out) {
            if (existing.words == words && existing.digitsFolded == digitsFolded)
                return;
        }
        out.append(Reading{kind, std::move(words), digitsFolded});
    };
    for (const Ordering &ordering : orderings) {
        const QString visible = withoutInvisible(ordering.text);
        const TextReading plain =
            ordering.displayed ? TextReading::Displayed : TextReading::Written;
        const TextReading folded =
            ordering.displayed ? TextReading::DisplayedFolded : TextReading::Folded;
        add(plain, wordsOf(visible), false);
        add(folded, wordsOf(foldLookalikes(visible, DigitFold::None)), false);
        add(folded, wordsOf(foldLookalikes(visible, DigitFold::OneAsL)), true);
        add(folded, wordsOf(foldLookalikes(visible, DigitFold::OneAsI)), true);
    }
    return out;
}

TextVerdict read(QStringView text, bool splitCamelCase)
{
    TextVerdict verdict;
    const QList<Reading> all = readings(text, splitCamelCase);
    int bestPriority = int(std::size(kConsequencePriority));
    bool routine = true;
    bool sawRoutineReading = false;
    std::optional<QString> routineText;
    bool sameRoutineText = true;
    for (const Reading &reading : all) {
        const WordsVerdict words = judgeWords(reading.words);
        for (const C consequence : words.named) {
            const int priority = priorityOf(consequence);
            if (priority < bestPriority) {
                bestPriority = priority;
                verdict.named = consequence;
                verdict.namedBy = reading.kind;
            }
        }
        verdict.area = verdict.area || words.area;
        verdict.signInArea = verdict.signInArea || words.signInArea;
        if (reading.digitsFolded)
            continue; // folding digits finds consequences; it never makes a text routine
        sawRoutineReading = true;
        routine = routine && words.routine;
        const QString joined = reading.words.join(u' ');
        if (!routineText)
            routineText = joined;
        else if (*routineText != joined)
            sameRoutineText = false;
    }
    verdict.unreadable = hasUnreadableLetter(text.left(kMaxReadUnits));
    verdict.routine = sawRoutineReading && routine && !verdict.named && !verdict.unreadable;
    if (verdict.routine && sameRoutineText && routineText)
        verdict.routineText = *routineText;
    return verdict;
}

} // namespace ConsequenceText

} // namespace veetbot
