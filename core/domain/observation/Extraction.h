#pragma once

#include "ExtractRequest.h"
#include "domain/Result.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QSet>
#include <QString>

#include <optional>

namespace veetbot {

// Bounds of browser.observe {extract}.
namespace ExtractionBounds {
inline constexpr int kMaxCollectionNodes = 8192;   // main-document elements visited to find it
inline constexpr int kMaxRowNodes = 4096;          // descendants visited to find rows and cells
inline constexpr int kMaxCellUnits = 256;          // UTF-16 units retained per cell
inline constexpr int kMaxCeilingBytes = 64 * 1024; // compact JSON of the whole extraction
// Integers are exact in JSON (IEEE doubles): |n| <= 2^53 - 1.
inline constexpr qint64 kMaxExactInteger = (qint64(1) << 53) - 1;
} // namespace ExtractionBounds

// One requested cell. `value` is typed by its column (string, integer, number, boolean) and is
// non-null only when `status` is Ok. `text` is the bounded source text, kept only where the
// typed value cannot stand for it: invalid and truncated cells.
struct ExtractionCell
{
    enum class Status
    {
        Ok,
        Missing,   // no cell at that position, or no readable text in it
        Invalid,   // text that is not a value of the column's type
        Truncated, // more than 256 UTF-16 units or 256 nodes: never typed
    };
    Status status = Status::Missing;
    QJsonValue value = QJsonValue(QJsonValue::Null);
    std::optional<QString> text;

    friend bool operator==(const ExtractionCell &, const ExtractionCell &) = default;
};

QString extractionCellStatusString(ExtractionCell::Status status);

// One row: an evidence reference (revision-bound, never actionable, never an `after` anchor),
// schema validity, and exactly one cell per requested column. `valid` says only that the row
// matches the requested schema; it conveys neither truth nor the completion of any action.
struct ExtractionRow
{
    QString ref;
    bool valid = false;
    bool spanning = false; // a spanning table cell touches the row: unsupported, cells unread
    QList<ExtractionCell> cells;

    friend bool operator==(const ExtractionRow &, const ExtractionRow &) = default;
};

struct ExtractionCoverage
{
    int scannedNodes = 0;             // collection discovery, at most 8,192
    bool scanLimitReached = false;    // discovery stopped at its bound before finding it
    int rowScannedNodes = 0;          // row discovery, at most 4,096
    bool rowScanLimitReached = false; // rows may remain beyond the bound
    int rowsSeen = 0;                 // visible body rows found by row discovery
    bool limitReached = false;        // more rows were seen than the request's limit
    int rowsOmittedByLimit = 0;
    int rowsOmittedByCeiling = 0; // whole rows dropped by the 64 KiB ceiling

    friend bool operator==(const ExtractionCoverage &, const ExtractionCoverage &) = default;
};

// The result of one extraction: what was asked (kind, index, columns), whether the index-th
// visible collection of that kind was found, its typed rows and its coverage. Never an input
// value, a selected option or hidden text.
struct Extraction
{
    ExtractRequest::Kind kind = ExtractRequest::Kind::Table;
    int index = 0;
    QList<ExtractColumn> columns;
    bool found = false;
    QList<ExtractionRow> rows;
    ExtractionCoverage coverage;

    QJsonObject toJson() const;
    // Strict: exact keys, types and bounds, one cell per column, statuses consistent with
    // values, unique row refs, counts that add up, and the 64 KiB ceiling. Anything else is
    // tool.browser.output_invalid.
    static Result<Extraction> fromJson(const QJsonValue &json);

    // Builds the extraction from the collector's raw answer for `request`: types every cell,
    // decides row validity, mints evidence refs `evidencePrefix + "." + i`, and drops whole
    // rows from the end until the canonical serialization fits the 64 KiB ceiling.
    // tool.browser.output_invalid when the raw answer is malformed.
    static Result<Extraction> fromCollector(const ExtractRequest &request, const QJsonValue &raw,
                                            const QString &evidencePrefix);

    // Size of the compact canonical serialization (what the ceiling bounds).
    qsizetype canonicalSize() const;
    // Whether no row ref is also one of `refs` (the observation's element refs).
    bool refsDisjointFrom(const QSet<QString> &refs) const;

    friend bool operator==(const Extraction &, const Extraction &) = default;
};

// Pure, locale-independent typing of one cell (unit-tested on its own).
namespace ExtractionTyping {
// Integers: an optional sign and one or more ASCII digits, nothing else (no grouping, no
// exponent, no fraction, no surrounding space); |n| <= 2^53 - 1.
std::optional<qint64> parseInteger(const QString &text);
// Numbers: an optional sign, digits with an optional '.' and fraction (or '.' and digits), an
// optional exponent (e/E, optional sign, digits); finite. No grouping separators, no
// locale decimal commas, no hex, inf or nan, no surrounding space.
std::optional<double> parseNumber(const QString &text);
// Booleans: exactly "true" or "false" (lower case).
std::optional<bool> parseBoolean(const QString &text);

// `source`: the cell's text (already whitespace-collapsed and bounded by the collector), or
// nullopt when the row has no cell at that position. `truncated`: the collector stopped at a
// cell bound.
ExtractionCell typeCell(ExtractColumn::Type type, const std::optional<QString> &source,
                        bool truncated);
// Required-missing, invalid and truncated cells invalidate a row; so do spanning cells.
bool rowIsValid(const QList<ExtractColumn> &columns, const QList<ExtractionCell> &cells,
                bool spanning);
} // namespace ExtractionTyping

} // namespace veetbot
