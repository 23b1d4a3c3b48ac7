#!/usr/bin/env python3
"""Generates core/domain/action/vocabulary/GeneratedVocabulary.inc, the translated part of the
consequence classifier's vocabulary, from the gettext catalogs of the Debian packages below.

For every consequence it takes a list of English msgids (with their gettext context) from
widely translated desktop software and collects each listed language's translation: the
mnemonic marks (_ and &), accelerator hints ("(_S)", "(&S)"), a trailing ellipsis and the
surrounding punctuation are stripped, and the text is lower-cased. A translation that is empty
or the English text again is left out (msgfmt already leaves fuzzy ones out of a .mo file).
When one phrase stands for several consequences, only the first of the classifier's priority
order keeps it.

  python3 scripts/gen-vocabulary.py                 # writes the table to standard output
  python3 scripts/gen-vocabulary.py --output FILE   # writes it to FILE
  python3 scripts/gen-vocabulary.py --check FILE    # fails, with a short diff, if FILE differs

Words no catalog carries (paying, buying, signing out in a website's words, Maltese) are kept
by hand in core/domain/action/vocabulary/HandKept.inc. Standard library only.
"""

import argparse
import difflib
import os
import re
import struct
import subprocess
import sys
import tempfile
import unicodedata

# The packages read, each with the gettext domains taken from it.
PACKAGES = [
    ("libgtk-3-common", "gtk30"),
    ("libkf5configwidgets-data", "kconfigwidgets5"),
    ("libkf5xmlgui-data", "kxmlgui5"),
    ("gnome-shell-common", "gnome-shell"),
]

# The classifier's priority order (kConsequencePriority): the first keeps a shared phrase.
PRIORITY = [
    "Payment", "Purchase", "AccountRecovery", "CredentialChange", "SecuritySettings",
    "PermissionChange", "Destructive", "FileTransfer", "LegalAcceptance", "Publication",
    "SignOut", "StateChange", "Submission",
]

# Each concept: its name in the table, the consequence, and the msgids that carry it as
# (domain, context or None, msgid). Key names ("keyboard label") and nouns are left out.
CONCEPTS = [
    ("donate", "Payment", [("kconfigwidgets5", None, "&Donate")]),
    ("delete", "Destructive", [
        ("gtk30", "Stock label", "_Delete"), ("gtk30", None, "_Delete"),
        ("kconfigwidgets5", None, "&Delete"), ("kxmlgui5", "@action:button", "Delete")]),
    ("remove", "Destructive", [("gtk30", "Stock label", "_Remove"), ("gtk30", None, "_Remove")]),
    ("discard", "Destructive", [("gtk30", "Stock label", "_Discard")]),
    ("move to trash", "Destructive", [
        ("gtk30", None, "_Move to Trash"), ("kconfigwidgets5", None, "&Move to Trash")]),
    ("send", "Publication", [("kxmlgui5", "@action:button", "&Send")]),
    ("log out", "SignOut", [
        ("gnome-shell", "button", "Log Out"), ("gnome-shell", "title", "Log Out"),
        ("gnome-shell", "search-result", "Log Out"), ("gnome-shell", None, "Log Out…")]),
    ("undo", "StateChange", [
        ("gtk30", "Stock label", "_Undo"), ("kconfigwidgets5", None, "&Undo"),
        ("kxmlgui5", None, "Undo"), ("gnome-shell", None, "Undo")]),
    ("revert", "StateChange", [
        ("gtk30", "Stock label", "_Revert"), ("kconfigwidgets5", None, "Re&vert")]),
    ("rename", "StateChange", [
        ("gtk30", None, "_Rename"), ("gtk30", None, "Rename…"),
        ("kconfigwidgets5", None, "&Rename...")]),
    ("move", "StateChange", [("gtk30", None, "Move"), ("gnome-shell", None, "Move")]),
    ("restore", "StateChange", [("gtk30", None, "Restore"), ("gnome-shell", None, "Restore")]),
    ("lock", "StateChange", [("gtk30", None, "Lock"), ("gnome-shell", None, "Lock")]),
    ("save", "Submission", [
        ("gtk30", "Stock label", "_Save"), ("gtk30", None, "_Save"),
        ("kconfigwidgets5", None, "&Save")]),
    ("apply", "Submission", [("gtk30", "Stock label", "_Apply"), ("gtk30", None, "_Apply")]),
]

# The languages: table code, name, and the catalog locales read (in order). English is the
# msgids themselves.
LANGUAGES = [
    ("bg", "Bulgarian", ["bg"]),
    ("hr", "Croatian", ["hr"]),
    ("cs", "Czech", ["cs"]),
    ("da", "Danish", ["da"]),
    ("nl", "Dutch", ["nl"]),
    ("en", "English", []),
    ("et", "Estonian", ["et"]),
    ("fi", "Finnish", ["fi"]),
    ("fr", "French", ["fr"]),
    ("de", "German", ["de"]),
    ("el", "Greek", ["el"]),
    ("hu", "Hungarian", ["hu"]),
    ("ga", "Irish", ["ga"]),
    ("it", "Italian", ["it"]),
    ("lv", "Latvian", ["lv"]),
    ("lt", "Lithuanian", ["lt"]),
    ("mt", "Maltese", ["mt"]),
    ("pl", "Polish", ["pl"]),
    ("pt", "Portuguese", ["pt"]),
    ("ro", "Romanian", ["ro"]),
    ("sk", "Slovak", ["sk"]),
    ("sl", "Slovenian", ["sl"]),
    ("es", "Spanish", ["es"]),
    ("sv", "Swedish", ["sv"]),
    ("zh-Hans", "Chinese (simplified)", ["zh_CN"]),
    ("zh-Hant", "Chinese (traditional)", ["zh_TW", "zh_HK"]),
    ("ja", "Japanese", ["ja"]),
    ("ko", "Korean", ["ko"]),
    ("ru", "Russian", ["ru"]),
    ("uk", "Ukrainian", ["uk"]),
    ("tr", "Turkish", ["tr"]),
    ("ar", "Arabic", ["ar"]),
    ("he", "Hebrew", ["he"]),
    ("hi", "Hindi", ["hi"]),
    ("id", "Indonesian", ["id"]),
    ("vi", "Vietnamese", ["vi"]),
    ("th", "Thai", ["th"]),
    ("pt-BR", "Portuguese (Brazil)", ["pt_BR"]),
]

# A translation that is also the catalog's word for one of these is left out: in that language
# the word is ordinary navigation (French "annuler" is both Undo and Cancel, Czech "zpět" both
# Undo and Back).
NAVIGATION = [
    ("gtk30", "Stock label", "_Cancel"), ("gtk30", None, "_Cancel"),
    ("gtk30", "Stock label", "_Close"), ("gtk30", "Stock label", "_OK"),
    ("gtk30", "Stock label, navigation", "_Back"), ("gtk30", "Stock label", "_Open"),
    ("gtk30", "Stock label", "_Yes"), ("gtk30", "Stock label", "_No"),
    ("kconfigwidgets5", None, "&Back"), ("kconfigwidgets5", "go back", "&Back"),
    ("kconfigwidgets5", None, "&Close"),
]

# Translations reviewed and left out, with the reason.
REVIEWED_OUT = {
    ("ga", "fill"): "Irish Revert, but an English word (fill in a form)",
    ("vi", "bỏ"): "Vietnamese Remove, but a syllable of many words (bỏ qua: skip)",
    ("uk", "влучити"): "a misspelt Ukrainian Remove (it means to hit)",
}

OUTPUT = "core/domain/action/vocabulary/GeneratedVocabulary.inc"


def fail(message):
    print("gen-vocabulary: " + message, file=sys.stderr)
    sys.exit(1)


def package_version(package):
    result = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", package],
                            capture_output=True, text=True, check=False)
    status, _, version = result.stdout.partition("\t")
    if result.returncode != 0 or not status.endswith("installed"):
        fail(package + " is not installed (scripts/setup.sh installs it)")
    return version


def package_files(package):
    result = subprocess.run(["dpkg-query", "-L", package], capture_output=True, text=True,
                            check=True)
    return set(result.stdout.splitlines())


def read_mo(path):
    """A .mo file's singular messages as {(context, msgid): msgstr}."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 20:
        fail(path + ": not a .mo file")
    magic = struct.unpack("<I", data[:4])[0]
    order = {0x950412DE: "<", 0xDE120495: ">"}.get(magic)
    if order is None:
        fail(path + ": not a .mo file")
    _, count, originals, translations = struct.unpack(order + "4I", data[4:20])

    def string(table, i):
        length, offset = struct.unpack(order + "2I", data[table + 8 * i:table + 8 * i + 8])
        return data[offset:offset + length]

    raw = [(string(originals, i), string(translations, i)) for i in range(count)]
    charset = "utf-8"
    for original, translated in raw:
        if original == b"":
            found = re.search(rb"charset=([A-Za-z0-9_-]+)", translated)
            if found:
                charset = found.group(1).decode("ascii")
    messages = {}
    for original, translated in raw:
        if original == b"" or b"\0" in original:
            continue  # the header, and plural forms
        context, _, msgid = original.rpartition(b"\x04")
        messages[(context.decode(charset) or None, msgid.decode(charset))] = \
            translated.decode(charset)
    return messages


ACCELERATOR_HINT = re.compile(r"\s*[(（]\s*[_&][^)）]\s*[)）]")


def is_edge(character):
    # Punctuation, symbols, spaces and controls; never a letter, digit or mark (a Devanagari
    # or Thai vowel sign ends many words).
    return unicodedata.category(character)[0] in "PSZC" or character == "_"


def normalised(text):
    text = unicodedata.normalize("NFC", text)
    text = ACCELERATOR_HINT.sub("", text)
    text = text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("_", "")
    text = text.replace("…", "").replace("...", "")
    start, end = 0, len(text)
    while start < end and is_edge(text[start]):
        start += 1
    while end > start and is_edge(text[end - 1]):
        end -= 1
    text = re.sub(r"\s+", " ", text[start:end])
    # Lower case, one letter for one (a dotted capital I stays, as the classifier folds it).
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def usable(text):
    return bool(text) and "%" not in text and "\n" not in text and len(text) <= 48


def generate():
    versions = [(package, domain, package_version(package)) for package, domain in PACKAGES]
    catalogs = {}  # (domain, locale) -> messages
    for package, domain, _ in versions:
        for path in sorted(package_files(package)):
            found = re.fullmatch(r"/usr/share/locale/([^/]+)/LC_MESSAGES/" + re.escape(domain) +
                                 r"\.mo", path)
            if found:
                catalogs[(domain, found.group(1))] = read_mo(path)

    def translation(domain, locale, context, msgid):
        return normalised(catalogs.get((domain, locale), {}).get((context, msgid), ""))

    rows = []
    for code, _, locales in LANGUAGES:
        navigation = {translation(domain, locale, context, msgid)
                      for locale in locales for domain, context, msgid in NAVIGATION}
        for concept, consequence, msgids in CONCEPTS:
            phrases = []
            for domain, context, msgid in msgids:
                english = normalised(msgid)
                if not locales:
                    phrases.append(english)
                for locale in locales:
                    phrase = translation(domain, locale, context, msgid)
                    if (usable(phrase) and phrase != english and phrase not in navigation and
                            (code, phrase) not in REVIEWED_OUT):
                        phrases.append(phrase)
            for phrase in dict.fromkeys(phrases):
                rows.append((code, concept, phrase, consequence))
    # A phrase that stands for several consequences keeps only the first of the priority order.
    first = {}
    for _, _, phrase, consequence in rows:
        first[phrase] = min(first.get(phrase, len(PRIORITY)), PRIORITY.index(consequence))

    out = [
        "// The translated vocabulary of the consequence classifier: {language, English, phrase,",
        "// consequence}. Generated by scripts/gen-vocabulary.py from the gettext catalogs of",
        "// these Debian packages; do not edit (tests run the generator and compare):",
    ]
    for package, domain, version in versions:
        out.append("//   {} {} ({}.mo)".format(package, version, domain))
    names = {code: name for code, name, _ in LANGUAGES}
    current = None
    written = set()
    for code, concept, phrase, consequence in rows:
        if PRIORITY[first[phrase]] != consequence or (code, phrase) in written:
            continue
        written.add((code, phrase))
        if code != current:
            out.append("// " + names[code])
            current = code
        out.append('{{"{}", "{}", "{}", C::{}}},'.format(
            code, concept, phrase.replace("\\", "\\\\").replace('"', '\\"'), consequence))
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="write the table to this file")
    parser.add_argument("--check", help="fail if this committed table differs")
    args = parser.parse_args()
    table = generate()
    if args.check:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".inc",
                                         delete=False) as regenerated:
            regenerated.write(table)
        try:
            with open(args.check, encoding="utf-8") as f:
                committed = f.read()
            with open(regenerated.name, encoding="utf-8") as f:
                fresh = f.read()
        finally:
            os.unlink(regenerated.name)
        if committed != fresh:
            diff = list(difflib.unified_diff(committed.splitlines(), fresh.splitlines(),
                                             args.check, "regenerated", lineterm="", n=0))
            print("\n".join(diff[:40]), file=sys.stderr)
            if len(diff) > 40:
                print("... {} more diff lines".format(len(diff) - 40), file=sys.stderr)
            fail(args.check + " differs from the installed catalogs; run "
                 "python3 scripts/gen-vocabulary.py --output " + OUTPUT + " and review")
        return
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(table)
    else:
        sys.stdout.write(table)


if __name__ == "__main__":
    main()
