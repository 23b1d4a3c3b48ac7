#pragma once

#include "ActionConsequence.h"

#include <QByteArray>
#include <QString>
#include <QUrl>

#include <optional>

namespace veetbot {

// The write guard (docs/authority.md#the-write-guard, ADR 0013): while an act that no fresh
// approval or task grant stands behind runs (ordinary interaction, a standing grant), the
// browser refuses at its request stage every request that can write. Words decide which card
// the owner sees; this decides what can leave. Pure: the browser applies it to each request it
// sees, with the body where its engine shows one.
namespace WriteGuard {

// What kind of request the browser is about to send.
enum class RequestKind
{
    Document,    // a main-frame or frame document (a link, a form, location.href, ...)
    PageRequest, // fetch, XMLHttpRequest, EventSource
    Beacon,      // navigator.sendBeacon, <a ping>, a CSP report: nobody reads the response
    Asset,       // a static subresource: a script, a style sheet, an image, a font, media
    Other        // anything else (a prefetch, a plugin's object, a worker, an unknown kind)
};

enum class Verdict
{
    Read,   // may be sent
    Write,  // refused; the act ends tool.browser.write_requires_approval
    Dropped // refused quietly: a beacon is never the act's effect, so the act goes on
};

// Why a request was judged a write (for tests and audits; never shown with the URL).
enum class WriteReason
{
    None,
    Method,         // not GET or HEAD, and no body shows it is a read
    TokenParameter, // a query parameter named like a token, nonce or signature
    TokenValue,     // a query value of 16 or more characters that looks random
    OperationValue, // an operation parameter (action=, op=, do=, ...) naming no read
    MethodOverride, // _method= (or X-HTTP-Method-Override in the query) naming a write
    WriteEndpoint,  // a document or page request whose last path segment names a write
    SignOutPath     // any request with a path segment that reads as signing out
};
QString writeReasonString(WriteReason reason);

struct Request
{
    QByteArray method; // upper case, as the engine reports it
    RequestKind kind = RequestKind::Other;
    QUrl url;
    // The request body when the engine shows it (the Chromium placement does; Qt WebEngine
    // 6.4 does not), and its content type. Used only to recognise a GraphQL query.
    std::optional<QByteArray> body;
    QByteArray contentType;
    // The request goes to an origin outside the profile's (a third party's): the stranger
    // rule of ActGuard applies to it (docs/authority.md, "What leaves the browser").
    bool stranger = false;
};

// What an operation parameter's value (action=, op=, do=, ...) says it does.
enum class OperationKind
{
    None,   // empty, a number or "-1": a form's "no bulk action", not an operation
    Read,   // a read operation (view, edit as a form, history, search, opensearch, query, ...)
    Write,  // a write operation (delete, trash, spam, approve, rollback, logout, markread, ...)
    Unknown // neither: a strong operation parameter then reads as a write (deny bias)
};
// The value's words (split on separators and camel-case humps): a write word anywhere, or a
// consequence the classifier names (in every language it reads), makes it Write; otherwise a
// read word anywhere (or the whole value read as one) makes it Read.
OperationKind operationKind(QStringView value);

struct Judgement
{
    Verdict verdict = Verdict::Read;
    WriteReason reason = WriteReason::None;
};

// What the guard saw of a request it refused, for the owner's next card on the control that
// sent it (ADR 0024): never a value of the URL or the body. `method` is one of GET, HEAD, POST,
// PUT, PATCH, DELETE or OTHER; `segment` the address's last path segment when it is a plain
// word (a letter first, then letters, digits, '.', '-' or '_', at most kMaxSegmentUnits, and
// not token-shaped), else empty; `consequence` what the address or the shown body names (an
// operation such as delete, a sign-out, a payment), else StateChange.
struct RefusedWrite
{
    static constexpr qsizetype kMaxSegmentUnits = 32;
    QByteArray method;
    QString segment;
    BrowserActionConsequence consequence = BrowserActionConsequence::StateChange;
    friend bool operator==(const RefusedWrite &, const RefusedWrite &) = default;
};
RefusedWrite describeRefusal(const Request &request);
// Whether the parts of a summary are within these rules (the host protocol's decoder).
bool isValidRefusedWrite(const RefusedWrite &summary);

// The rule. A beacon is Dropped. A method other than GET or HEAD is a Write unless it is a
// page request whose body is shown and only reads (bodyOnlyReads); then its URL is judged as a
// GET's. A GET or HEAD of a static asset (script, style sheet, image, font, media) is a Write
// only when its query names a write operation or a path segment without a file extension reads
// as signing out (<img src="/logout">): its versions, hashes, signatures and tokens are how
// assets are cached and signed, never a change. Any other GET or HEAD is a Write when any path
// segment reads as signing out; for a document or page request, when its last path segment
// names a write (/delete, /rollback, /save: pathSegmentConsequence); and when its query carries
// a token or a write operation (queryWriteReason). Sensitive areas (/admin, /settings) never
// make a read a write: they only raise the owner's card.
Judgement judge(const Request &request);

// The query half of the rule, shared with the URLs the owner and the model see: the first
// reason a query parameter makes a GET of `kind` a write, else None.
//  - pagination parameters (cursor, page, offset, ...) are skipped;
//  - a token-named parameter (token, csrf, _wpnonce, sig, ...) is a write, except on an asset;
//  - a strong operation parameter (action, op, do, cmd, ...) is a write unless its value reads
//    or names none (OperationKind None or Read); a weak one (mode, task, event, intent) only
//    when its value names a write; on an asset only a write operation counts;
//  - a token-shaped value is a write on anything but an asset, unless the parameter names an
//    identifier (id, slug, ...): on an asset it is a version or a content hash (?ver=c2433...).
WriteReason queryWriteReason(const QUrl &url, RequestKind kind = RequestKind::Document);

// Whether a query parameter's name reads as a token (token, csrf, xsrf, nonce,
// authenticity_token, _wpnonce, sig, signature, hmac, secret, ...).
bool isTokenParameterName(QStringView name);
// Whether a value looks like a secret: at least 16 letters and digits, no white space, and
// hex with letters and digits, or both cases with digits, or both cases with a quarter or more
// upper case (hex digests, base64 and random tokens; not words, CamelCase titles, slugs, dates,
// numbers or UUIDs).
bool isTokenShapedValue(QStringView value);
// Whether a parameter names an identifier (id, postId, user_ids, uuid, slug, sku): its value
// is not judged by its shape (an item's id is read every day), only its name is.
bool isIdentifierParameterName(QStringView name);
// Whether a parameter places a page in a list (cursor, after, page, pageToken, continue, ...):
// such parameters are skipped, their values being opaque reads.
bool isPaginationParameterName(QStringView name);
// Whether a parameter names an operation (action, op, operation, do, cmd, command, task, mode,
// method, func, function, event, verb, intent). The strong ones (all but mode, task, event and
// intent) read as a write unless their value reads.
bool isOperationParameterName(QStringView name);
bool isStrongOperationParameterName(QStringView name);

// Whether a request body holds only GraphQL queries: JSON ({"query": "query ..."} or
// "{ ... }", or a batch of such objects) or an application/graphql document, whose top-level
// definitions are all queries or fragments. A persisted query carries no text to read and is
// not one; neither is a body over 64 KiB, malformed JSON, or any other content type.
bool graphQlIsQuery(const QByteArray &body, const QByteArray &contentType);
// Whether a JSON-RPC body (an object with "jsonrpc" and a "method", or a batch of such) names
// only read methods (getItems, list_users, search, ...: operationKind Read).
bool jsonRpcOnlyReads(const QByteArray &body, const QByteArray &contentType);
// Whether a form-encoded body names an operation that reads and nothing that writes: an
// operation parameter reading (action=query), no token parameter, no other operation
// (MediaWiki's POST api.php?action=query).
bool formBodyOnlyReads(const QByteArray &body, const QByteArray &contentType);
// Whether a shown body of a POST page request only reads: a GraphQL query, a JSON-RPC read, a
// form naming a read operation, or JSON sent to an endpoint whose last path segment is a read
// (/search, /query, /lookup, /suggest, /autocomplete, /_search, /count).
bool bodyOnlyReads(const Request &request);

} // namespace WriteGuard

} // namespace veetbot
