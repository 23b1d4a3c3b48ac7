#include "Extraction.h"

#include "domain/ToolJson.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace veetbot {

namespace {

const QLatin1String kSpanningCells("spanning_cells");

std::optional<ExtractionCell::Status> statusFromString(const QString &status)
{
    if (status == QLatin1String("ok"))
        return ExtractionCell::Status::Ok;
    if (status == QLatin1String("missing"))
        return ExtractionCell::Status::Missing;
    if (status == QLatin1String("invalid"))
        return ExtractionCell::Status::Invalid;
    if (status == QLatin1String("truncated"))
        return ExtractionCell::Status::Truncated;
    return std::nullopt;
}

std::optional<ExtractRequest::Kind> kindFromString(const QString &kind)
{
    for (const auto k :
         {ExtractRequest::Kind::Table, ExtractRequest::Kind::List, ExtractRequest::Kind::Form}) {
        if (extractKindString(k) == kind)
            return k;
    }
    return std::nullopt;
}

std::optional<ExtractColumn::Type> typeFromString(const QString &type)
{
    for (const auto t : {ExtractColumn::Type::String, ExtractColumn::Type::Integer,
                         ExtractColumn::Type::Number, ExtractColumn::Type::Boolean}) {
        if (extractColumnTypeString(t) == type)
            return t;
    }
    return std::nullopt;
}

bool keysExactly(const QJsonObject &object, std::initializer_list<const char *> keys)
{
    if (object.size() != qsizetype(keys.size()))
        return false;
    for (const char *key : keys) {
        if (!object.contains(QLatin1String(key)))
            return false;
    }
    return true;
}

std::optional<qint64> exactInteger(const QJsonValue &value, qint64 min, qint64 max)
{
    return ToolJson::integer(value, min, max);
}

bool wellFormedText(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate()) {
            if (i + 1 >= text.size() || !text.at(i + 1).isLowSurrogate())
                return false;
            ++i;
        } else if (c.isLowSurrogate()) {
            return false;
        }
    }
    return true;
}

// A cell's source text as the collector may hand it over: 0-256 units, well formed.
std::optional<QString> boundedText(const QJsonValue &value)
{
    if (!value.isString())
        return std::nullopt;
    const QString text = value.toString();
    if (text.size() > ExtractionBounds::kMaxCellUnits || !wellFormedText(text))
        return std::nullopt;
    return text;
}

// Whether an Ok value has the column's JSON type and bounds.
bool valueFitsType(const QJsonValue &value, ExtractColumn::Type type)
{
    switch (type) {
    case ExtractColumn::Type::String:
        return value.isString() && !value.toString().isEmpty() && boundedText(value).has_value();
    case ExtractColumn::Type::Integer:
        return exactInteger(value, -ExtractionBounds::kMaxExactInteger,
                            ExtractionBounds::kMaxExactInteger)
            .has_value();
    case ExtractColumn::Type::Number:
        return value.isDouble() && std::isfinite(value.toDouble());
    case ExtractColumn::Type::Boolean:
        return value.isBool();
    }
    return false;
}

QJsonObject cellJson(const ExtractionCell &cell)
{
    QJsonObject json{{QStringLiteral("status"), extractionCellStatusString(cell.status)},
                     {QStringLiteral("value"), cell.value}};
    if (cell.text)
        json.insert(QStringLiteral("text"), *cell.text);
    return json;
}

QJsonObject rowJson(const ExtractionRow &row)
{
    QJsonArray cells;
    for (const ExtractionCell &cell : row.cells)
        cells.append(cellJson(cell));
    QJsonObject json{{QStringLiteral("ref"), row.ref},
                     {QStringLiteral("valid"), row.valid},
                     {QStringLiteral("cells"), cells}};
    if (row.spanning)
        json.insert(QStringLiteral("unsupported"), kSpanningCells);
    return json;
}

std::optional<ExtractionCell> readCell(const QJsonValue &value, const ExtractColumn &column)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject object = value.toObject();
    const bool hasText = object.contains(QLatin1String("text"));
    if (!(hasText ? keysExactly(object, {"status", "value", "text"})
                  : keysExactly(object, {"status", "value"})))
        return std::nullopt;
    const QJsonValue status = object.value(QLatin1String("status"));
    if (!status.isString())
        return std::nullopt;
    const auto parsed = statusFromString(status.toString());
    if (!parsed)
        return std::nullopt;
    ExtractionCell cell;
    cell.status = *parsed;
    cell.value = object.value(QLatin1String("value"));
    if (hasText) {
        // Source text only where the typed value cannot stand for it.
        if (cell.status != ExtractionCell::Status::Invalid &&
            cell.status != ExtractionCell::Status::Truncated)
            return std::nullopt;
        cell.text = boundedText(object.value(QLatin1String("text")));
        if (!cell.text)
            return std::nullopt;
    }
    if (cell.status == ExtractionCell::Status::Ok) {
        if (!valueFitsType(cell.value, column.type))
            return std::nullopt;
    } else if (!cell.value.isNull()) {
        return std::nullopt;
    }
    return cell;
}

std::optional<ExtractionRow> readRow(const QJsonValue &value, const QList<ExtractColumn> &columns)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject object = value.toObject();
    const bool spanning = object.contains(QLatin1String("unsupported"));
    if (!(spanning ? keysExactly(object, {"ref", "valid", "cells", "unsupported"})
                   : keysExactly(object, {"ref", "valid", "cells"})))
        return std::nullopt;
    if (spanning && object.value(QLatin1String("unsupported")) != QJsonValue(kSpanningCells))
        return std::nullopt;
    ExtractionRow row;
    row.spanning = spanning;
    const QJsonValue ref = object.value(QLatin1String("ref"));
    const QJsonValue valid = object.value(QLatin1String("valid"));
    const QJsonValue cells = object.value(QLatin1String("cells"));
    if (!ref.isString() || ref.toString().isEmpty() || ref.toString().size() > 128 ||
        !valid.isBool() || !cells.isArray() || cells.toArray().size() != columns.size())
        return std::nullopt;
    row.ref = ref.toString();
    row.valid = valid.toBool();
    const QJsonArray cellArray = cells.toArray();
    for (qsizetype i = 0; i < cellArray.size(); ++i) {
        const auto cell = readCell(cellArray.at(i), columns.at(i));
        if (!cell)
            return std::nullopt;
        // A spanning row is never read: every cell is an unread invalid cell.
        if (spanning && (cell->status != ExtractionCell::Status::Invalid || cell->text))
            return std::nullopt;
        row.cells.append(*cell);
    }
    if (row.valid != ExtractionTyping::rowIsValid(columns, row.cells, row.spanning))
        return std::nullopt;
    return row;
}

std::optional<ExtractColumn> readColumn(const QJsonValue &value)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject object = value.toObject();
    if (!keysExactly(object, {"name", "type", "required"}))
        return std::nullopt;
    const QJsonValue name = object.value(QLatin1String("name"));
    const QJsonValue type = object.value(QLatin1String("type"));
    const QJsonValue required = object.value(QLatin1String("required"));
    if (!name.isString() || name.toString().isEmpty() ||
        name.toString().size() > ExtractColumn::kMaxNameUnits || !type.isString() ||
        !required.isBool())
        return std::nullopt;
    const auto parsedType = typeFromString(type.toString());
    if (!parsedType)
        return std::nullopt;
    return ExtractColumn{name.toString(), *parsedType, required.toBool()};
}

bool readCoverage(const QJsonValue &value, ExtractionCoverage &coverage)
{
    if (!value.isObject())
        return false;
    const QJsonObject object = value.toObject();
    if (!keysExactly(object, {"scanned_nodes", "scan_limit_reached", "row_scanned_nodes",
                              "row_scan_limit_reached", "rows_seen", "limit_reached",
                              "rows_omitted_by_limit", "rows_omitted_by_ceiling"}))
        return false;
    const auto scanned = exactInteger(object.value(QLatin1String("scanned_nodes")), 0,
                                      ExtractionBounds::kMaxCollectionNodes);
    const auto rowScanned = exactInteger(object.value(QLatin1String("row_scanned_nodes")), 0,
                                         ExtractionBounds::kMaxRowNodes);
    const auto seen =
        exactInteger(object.value(QLatin1String("rows_seen")), 0, ExtractionBounds::kMaxRowNodes);
    const auto byLimit = exactInteger(object.value(QLatin1String("rows_omitted_by_limit")), 0,
                                      ExtractionBounds::kMaxRowNodes);
    const auto byCeiling = exactInteger(object.value(QLatin1String("rows_omitted_by_ceiling")), 0,
                                        ExtractRequest::kMaxLimit);
    const QJsonValue scanLimit = object.value(QLatin1String("scan_limit_reached"));
    const QJsonValue rowScanLimit = object.value(QLatin1String("row_scan_limit_reached"));
    const QJsonValue limit = object.value(QLatin1String("limit_reached"));
    if (!scanned || !rowScanned || !seen || !byLimit || !byCeiling || !scanLimit.isBool() ||
        !rowScanLimit.isBool() || !limit.isBool())
        return false;
    coverage.scannedNodes = int(*scanned);
    coverage.scanLimitReached = scanLimit.toBool();
    coverage.rowScannedNodes = int(*rowScanned);
    coverage.rowScanLimitReached = rowScanLimit.toBool();
    coverage.rowsSeen = int(*seen);
    coverage.limitReached = limit.toBool();
    coverage.rowsOmittedByLimit = int(*byLimit);
    coverage.rowsOmittedByCeiling = int(*byCeiling);
    return true;
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

QString extractionCellStatusString(ExtractionCell::Status status)
{
    switch (status) {
    case ExtractionCell::Status::Ok:
        return QStringLiteral("ok");
    case ExtractionCell::Status::Missing:
        return QStringLiteral("missing");
    case ExtractionCell::Status::Invalid:
        return QStringLiteral("invalid");
    case ExtractionCell::Status::Truncated:
        return QStringLiteral("truncated");
    }
    Q_UNREACHABLE();
    return QString();
}

// --- typing ---------------------------------------------------------------------------------

namespace ExtractionTyping {

namespace {
bool isDigit(QChar c)
{
    return c.unicode() >= u'0' && c.unicode() <= u'9';
}
} // namespace

std::optional<qint64> parseInteger(const QString &text)
{
    qsizetype i = 0;
    bool negative = false;
    if (i < text.size() && (text.at(i) == u'+' || text.at(i) == u'-')) {
        negative = text.at(i) == u'-';
        ++i;
    }
    if (i >= text.size())
        return std::nullopt;
    qint64 magnitude = 0;
    for (; i < text.size(); ++i) {
        if (!isDigit(text.at(i)))
            return std::nullopt;
        magnitude = magnitude * 10 + (text.at(i).unicode() - u'0');
        if (magnitude > ExtractionBounds::kMaxExactInteger)
            return std::nullopt; // not exact in JSON
    }
    return negative ? -magnitude : magnitude;
}

std::optional<double> parseNumber(const QString &text)
{
    // Syntax first (ASCII only), then the C-locale conversion of exactly that text.
    qsizetype i = 0;
    const qsizetype n = text.size();
    if (i < n && (text.at(i) == u'+' || text.at(i) == u'-'))
        ++i;
    qsizetype digits = 0;
    while (i < n && isDigit(text.at(i))) {
        ++i;
        ++digits;
    }
    if (i < n && text.at(i) == u'.') {
        ++i;
        while (i < n && isDigit(text.at(i))) {
            ++i;
            ++digits;
        }
    }
    if (digits == 0)
        return std::nullopt;
    if (i < n && (text.at(i) == u'e' || text.at(i) == u'E')) {
        ++i;
        if (i < n && (text.at(i) == u'+' || text.at(i) == u'-'))
            ++i;
        qsizetype exponentDigits = 0;
        while (i < n && isDigit(text.at(i))) {
            ++i;
            ++exponentDigits;
        }
        if (exponentDigits == 0)
            return std::nullopt;
    }
    if (i != n)
        return std::nullopt;
    bool ok = false;
    const double value = text.toLatin1().toDouble(&ok); // always the C locale
    if (!ok || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<bool> parseBoolean(const QString &text)
{
    if (text == QLatin1String("true"))
        return true;
    if (text == QLatin1String("false"))
        return false;
    return std::nullopt;
}

ExtractionCell typeCell(ExtractColumn::Type type, const std::optional<QString> &source,
                        bool truncated)
{
    ExtractionCell cell;
    if (truncated && source) {
        cell.status = ExtractionCell::Status::Truncated;
        cell.text = *source;
        return cell;
    }
    if (!source || source->isEmpty()) {
        cell.status = ExtractionCell::Status::Missing;
        return cell;
    }
    const QString &text = *source;
    switch (type) {
    case ExtractColumn::Type::String:
        cell.value = text;
        break;
    case ExtractColumn::Type::Integer:
        if (const auto value = parseInteger(text))
            cell.value = double(*value);
        break;
    case ExtractColumn::Type::Number:
        if (const auto value = parseNumber(text))
            cell.value = *value;
        break;
    case ExtractColumn::Type::Boolean:
        if (const auto value = parseBoolean(text))
            cell.value = *value;
        break;
    }
    if (cell.value.isNull()) {
        cell.status = ExtractionCell::Status::Invalid;
        cell.text = text;
    } else {
        cell.status = ExtractionCell::Status::Ok;
    }
    return cell;
}

bool rowIsValid(const QList<ExtractColumn> &columns, const QList<ExtractionCell> &cells,
                bool spanning)
{
    if (spanning || cells.size() != columns.size())
        return false;
    for (qsizetype i = 0; i < cells.size(); ++i) {
        switch (cells.at(i).status) {
        case ExtractionCell::Status::Ok:
            break;
        case ExtractionCell::Status::Missing:
            if (columns.at(i).required)
                return false;
            break;
        case ExtractionCell::Status::Invalid:
        case ExtractionCell::Status::Truncated:
            return false;
        }
    }
    return true;
}

} // namespace ExtractionTyping

// --- canonical JSON -------------------------------------------------------------------------

QJsonObject Extraction::toJson() const
{
    QJsonArray columnArray;
    for (const ExtractColumn &column : columns) {
        columnArray.append(
            QJsonObject{{QStringLiteral("name"), column.name},
                        {QStringLiteral("type"), extractColumnTypeString(column.type)},
                        {QStringLiteral("required"), column.required}});
    }
    QJsonArray rowArray;
    for (const ExtractionRow &row : rows)
        rowArray.append(rowJson(row));
    return QJsonObject{
        {QStringLiteral("kind"), extractKindString(kind)},
        {QStringLiteral("index"), index},
        {QStringLiteral("columns"), columnArray},
        {QStringLiteral("found"), found},
        {QStringLiteral("rows"), rowArray},
        {QStringLiteral("coverage"),
         QJsonObject{{QStringLiteral("scanned_nodes"), coverage.scannedNodes},
                     {QStringLiteral("scan_limit_reached"), coverage.scanLimitReached},
                     {QStringLiteral("row_scanned_nodes"), coverage.rowScannedNodes},
                     {QStringLiteral("row_scan_limit_reached"), coverage.rowScanLimitReached},
                     {QStringLiteral("rows_seen"), coverage.rowsSeen},
                     {QStringLiteral("limit_reached"), coverage.limitReached},
                     {QStringLiteral("rows_omitted_by_limit"), coverage.rowsOmittedByLimit},
                     {QStringLiteral("rows_omitted_by_ceiling"), coverage.rowsOmittedByCeiling}}},
    };
}

qsizetype Extraction::canonicalSize() const
{
    return compact(toJson()).size();
}

bool Extraction::refsDisjointFrom(const QSet<QString> &refs) const
{
    for (const ExtractionRow &row : rows) {
        if (refs.contains(row.ref))
            return false;
    }
    return true;
}

Result<Extraction> Extraction::fromJson(const QJsonValue &json)
{
    const Error invalid = Error::fromReason(ReasonCode::OutputInvalid);
    if (!json.isObject())
        return invalid;
    const QJsonObject object = json.toObject();
    if (!keysExactly(object, {"kind", "index", "columns", "found", "rows", "coverage"}))
        return invalid;
    Extraction extraction;
    const QJsonValue kind = object.value(QLatin1String("kind"));
    const auto index =
        exactInteger(object.value(QLatin1String("index")), 0, ExtractRequest::kMaxIndex);
    const QJsonValue found = object.value(QLatin1String("found"));
    const QJsonValue columns = object.value(QLatin1String("columns"));
    const QJsonValue rows = object.value(QLatin1String("rows"));
    if (!kind.isString() || !index || !found.isBool() || !columns.isArray() || !rows.isArray())
        return invalid;
    const auto parsedKind = kindFromString(kind.toString());
    if (!parsedKind)
        return invalid;
    extraction.kind = *parsedKind;
    extraction.index = int(*index);
    extraction.found = found.toBool();
    const QJsonArray columnArray = columns.toArray();
    if (columnArray.size() < ExtractRequest::kMinColumns ||
        columnArray.size() > ExtractRequest::kMaxColumns)
        return invalid;
    QSet<QString> names;
    for (const QJsonValue &value : columnArray) {
        const auto column = readColumn(value);
        if (!column || names.contains(column->name))
            return invalid;
        names.insert(column->name);
        extraction.columns.append(*column);
    }
    const QJsonArray rowArray = rows.toArray();
    if (rowArray.size() > ExtractRequest::kMaxLimit)
        return invalid;
    QSet<QString> refs;
    for (const QJsonValue &value : rowArray) {
        const auto row = readRow(value, extraction.columns);
        if (!row || refs.contains(row->ref))
            return invalid;
        refs.insert(row->ref);
        extraction.rows.append(*row);
    }
    ExtractionCoverage &coverage = extraction.coverage;
    if (!readCoverage(object.value(QLatin1String("coverage")), coverage))
        return invalid;
    // The counts add up: every row seen was returned or omitted for a stated reason.
    if (extraction.rows.size() + coverage.rowsOmittedByLimit + coverage.rowsOmittedByCeiling !=
            coverage.rowsSeen ||
        extraction.rows.size() + coverage.rowsOmittedByCeiling > ExtractRequest::kMaxLimit ||
        coverage.limitReached != (coverage.rowsOmittedByLimit > 0))
        return invalid;
    if (!extraction.found &&
        (coverage.rowsSeen != 0 || coverage.rowScannedNodes != 0 || coverage.rowScanLimitReached))
        return invalid;
    if (compact(object).size() > ExtractionBounds::kMaxCeilingBytes)
        return invalid;
    return extraction;
}

// --- from the collector ---------------------------------------------------------------------

Result<Extraction> Extraction::fromCollector(const ExtractRequest &request, const QJsonValue &raw,
                                             const QString &evidencePrefix)
{
    const Error invalid = Error::fromReason(ReasonCode::OutputInvalid);
    if (!raw.isObject())
        return invalid;
    const QJsonObject object = raw.toObject();
    if (!keysExactly(object, {"found", "scanned_nodes", "scan_limit_reached", "row_scanned_nodes",
                              "row_scan_limit_reached", "rows_seen", "rows"}))
        return invalid;
    const QJsonValue found = object.value(QLatin1String("found"));
    const auto scanned = exactInteger(object.value(QLatin1String("scanned_nodes")), 0,
                                      ExtractionBounds::kMaxCollectionNodes);
    const QJsonValue scanLimit = object.value(QLatin1String("scan_limit_reached"));
    const auto rowScanned = exactInteger(object.value(QLatin1String("row_scanned_nodes")), 0,
                                         ExtractionBounds::kMaxRowNodes);
    const QJsonValue rowScanLimit = object.value(QLatin1String("row_scan_limit_reached"));
    const auto seen =
        exactInteger(object.value(QLatin1String("rows_seen")), 0, ExtractionBounds::kMaxRowNodes);
    const QJsonValue rows = object.value(QLatin1String("rows"));
    if (!found.isBool() || !scanned || !scanLimit.isBool() || !rowScanned ||
        !rowScanLimit.isBool() || !seen || !rows.isArray())
        return invalid;
    const QJsonArray rowArray = rows.toArray();
    if (rowArray.size() > request.limit || rowArray.size() > *seen)
        return invalid;

    Extraction extraction;
    extraction.kind = request.kind;
    extraction.index = request.index;
    extraction.columns = request.columns;
    extraction.found = found.toBool();
    extraction.coverage.scannedNodes = int(*scanned);
    extraction.coverage.scanLimitReached = scanLimit.toBool();
    extraction.coverage.rowScannedNodes = int(*rowScanned);
    extraction.coverage.rowScanLimitReached = rowScanLimit.toBool();
    extraction.coverage.rowsSeen = int(*seen);
    extraction.coverage.rowsOmittedByLimit = int(*seen - rowArray.size());
    extraction.coverage.limitReached = extraction.coverage.rowsOmittedByLimit > 0;

    const int columnCount = int(request.columns.size());
    for (qsizetype r = 0; r < rowArray.size(); ++r) {
        if (!rowArray.at(r).isObject())
            return invalid;
        const QJsonObject rawRow = rowArray.at(r).toObject();
        if (!keysExactly(rawRow, {"spanning", "cells"}))
            return invalid;
        const QJsonValue spanning = rawRow.value(QLatin1String("spanning"));
        const QJsonValue cells = rawRow.value(QLatin1String("cells"));
        if (!spanning.isBool() || !cells.isArray())
            return invalid;
        const QJsonArray cellArray = cells.toArray();
        ExtractionRow row;
        row.ref = evidencePrefix + QLatin1Char('.') + QString::number(r);
        row.spanning = spanning.toBool();
        if (row.spanning) {
            // Spanning cells are unsupported: the row is reported, never read.
            if (!cellArray.isEmpty())
                return invalid;
            for (int c = 0; c < columnCount; ++c) {
                ExtractionCell cell;
                cell.status = ExtractionCell::Status::Invalid;
                row.cells.append(cell);
            }
        } else {
            if (cellArray.size() != columnCount)
                return invalid;
            for (int c = 0; c < columnCount; ++c) {
                const QJsonValue rawCell = cellArray.at(c);
                std::optional<QString> text;
                bool truncated = false;
                if (!rawCell.isNull()) {
                    if (!rawCell.isObject())
                        return invalid;
                    const QJsonObject cellObject = rawCell.toObject();
                    if (!keysExactly(cellObject, {"text", "truncated"}))
                        return invalid;
                    text = boundedText(cellObject.value(QLatin1String("text")));
                    const QJsonValue cut = cellObject.value(QLatin1String("truncated"));
                    if (!text || !cut.isBool())
                        return invalid;
                    truncated = cut.toBool();
                }
                row.cells.append(
                    ExtractionTyping::typeCell(request.columns.at(c).type, text, truncated));
            }
        }
        row.valid = ExtractionTyping::rowIsValid(request.columns, row.cells, row.spanning);
        extraction.rows.append(row);
    }
    if (!extraction.found &&
        (!extraction.rows.isEmpty() || *seen != 0 || *rowScanned != 0 || rowScanLimit.toBool()))
        return invalid;

    // The 64 KiB ceiling drops whole rows from the end, counted.
    if (extraction.canonicalSize() > ExtractionBounds::kMaxCeilingBytes) {
        QList<qsizetype> rowSizes;
        for (const ExtractionRow &row : extraction.rows)
            rowSizes.append(compact(rowJson(row)).size());
        QList<ExtractionRow> kept = extraction.rows;
        while (!kept.isEmpty()) {
            kept.removeLast();
            extraction.coverage.rowsOmittedByCeiling += 1;
            Extraction empty = extraction;
            empty.rows.clear();
            qsizetype size = empty.canonicalSize();
            for (qsizetype i = 0; i < kept.size(); ++i)
                size += rowSizes.at(i) + (i > 0 ? 1 : 0);
            if (size <= ExtractionBounds::kMaxCeilingBytes)
                break;
        }
        extraction.rows = kept;
        if (extraction.canonicalSize() > ExtractionBounds::kMaxCeilingBytes)
            return invalid; // unreachable: the metadata alone is far below the ceiling
    }
    return extraction;
}

} // namespace veetbot
