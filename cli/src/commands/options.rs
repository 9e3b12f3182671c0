//! The one option parser of command flags: a command declares its flags ([`Flag`]: the words
//! and whether a value follows) and walks its words with [`scan`], matching each [`Word`] on
//! the flag's first name. The scan is lazy, so errors come in the order of the words, exactly
//! as a hand-written loop over them reports them.
//!
//! A flag is a [`Flag::switch`], a [`Flag::value`] (the next word, whatever it is; none is
//! `Missing arguments for: <context>`) or a [`Flag::lenient`] one (the next word only when it
//! reads as a value, else a bare switch). [`Flag::inline`] also reads `--name=value` as the flag
//! and its value; other flags keep `--name=value` a word of its own. Where the context of a
//! missing value depends on the words (`find <locator>`), the caller renames it with
//! [`ParseError::in_context`].
//!
//! ```ignore
//! const FLAGS: &[Flag] = &[
//!     Flag::switch(&["-c", "--compact"]),
//!     Flag::value(&["-s", "--selector"], "diff snapshot --selector", "diff snapshot --selector <sel>"),
//! ];
//! for word in scan(&rest[1..], FLAGS) {
//!     match word? {
//!         Word::Switch("-c") => req.compact = true,
//!         Word::Value("-s", sel) => req.selector = Some(sel.to_string()),
//!         other => return Err(other.refused(USAGE)),
//!     }
//! }
//! ```

use super::error::ParseError;

/// One flag a command takes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Flag {
    /// Its words: the name the command matches on, then the aliases (`-c`, `--compact`).
    pub names: &'static [&'static str],
    /// `None` for a switch; for a flag with a value, what a missing value reports:
    /// `Missing arguments for: <context>` and `Usage: <usage>`.
    pub value: Option<(&'static str, &'static str)>,
    /// For a flag whose value upstream takes only when it is there and reads well (`snapshot
    /// -d 3`): which next words are its value. Any other next word, or none, leaves the flag
    /// without a value ([`Word::Switch`]) and is read as a word of its own.
    pub lenient: Option<fn(&str) -> bool>,
    /// Whether `--name=value` is also this flag with that value ([`Flag::inline`]).
    pub inline: bool,
}

impl Flag {
    /// A flag without a value.
    pub(crate) const fn switch(names: &'static [&'static str]) -> Flag {
        Flag {
            names,
            value: None,
            lenient: None,
            inline: false,
        }
    }

    /// A flag that takes the next word as its value when `accepts` it, and is a bare switch
    /// otherwise (never an error).
    pub(crate) const fn lenient(names: &'static [&'static str], accepts: fn(&str) -> bool) -> Flag {
        Flag {
            names,
            value: None,
            lenient: Some(accepts),
            inline: false,
        }
    }

    /// A flag followed by a value (the next word, whatever it looks like).
    pub(crate) const fn value(
        names: &'static [&'static str],
        context: &'static str,
        usage: &'static str,
    ) -> Flag {
        Flag {
            names,
            value: Some((context, usage)),
            lenient: None,
            inline: false,
        }
    }

    /// The flag also as `<name>=<value>` (for each of its names): the value is what follows the
    /// first `=`, possibly empty. Only for a flag with a value; a switch ignores it.
    pub(crate) const fn inline(self) -> Flag {
        Flag {
            inline: true,
            ..self
        }
    }

    fn takes_value(&self) -> bool {
        self.value.is_some() || self.lenient.is_some()
    }
}

/// One word, or a flag and its value, of a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word<'a> {
    /// A declared switch, by its first name.
    Switch(&'static str),
    /// A declared flag with a value, by its first name.
    Value(&'static str, &'a str),
    /// A word no flag declares (a positional word, or an unknown flag).
    Other(&'a str),
}

impl<'a> Word<'a> {
    /// The word as typed (a flag by its first name).
    pub(crate) fn text(&self) -> &'a str {
        match self {
            Word::Switch(word) | Word::Value(word, _) => word,
            Word::Other(word) => word,
        }
    }

    /// The error for a word the command does not take: `Unknown flag: <w>` for a word that
    /// starts with `-`, else `Unexpected argument: <w>`.
    pub(crate) fn refused(self, usage: &'static str) -> ParseError {
        let word = self.text();
        if word.starts_with('-') {
            ParseError::invalid(format!("Unknown flag: {word}"), usage)
        } else {
            ParseError::invalid(format!("Unexpected argument: {word}"), usage)
        }
    }
}

/// The words of `words`, read against `flags`, in order.
pub(crate) fn scan<'a>(
    words: &'a [&'a str],
    flags: &'static [Flag],
) -> impl Iterator<Item = Result<Word<'a>, ParseError>> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        let word = *words.get(i)?;
        i += 1;
        let Some(flag) = flags.iter().find(|f| f.names.contains(&word)) else {
            return Some(Ok(inline_value(word, flags).unwrap_or(Word::Other(word))));
        };
        let name = flag.names[0];
        if let Some(accepts) = flag.lenient {
            return Some(Ok(match words.get(i).filter(|next| accepts(next)) {
                Some(value) => {
                    i += 1;
                    Word::Value(name, value)
                }
                None => Word::Switch(name),
            }));
        }
        Some(match flag.value {
            None => Ok(Word::Switch(name)),
            Some((context, usage)) => match words.get(i) {
                Some(value) => {
                    i += 1;
                    Ok(Word::Value(name, value))
                }
                None => Err(ParseError::missing(context, usage)),
            },
        })
    })
}

/// `--name=value` as the [`Flag::inline`] flag `--name` with `value`.
fn inline_value<'a>(word: &'a str, flags: &'static [Flag]) -> Option<Word<'a>> {
    let (name, value) = word.split_once('=')?;
    let flag = flags
        .iter()
        .find(|f| f.inline && f.takes_value() && f.names.contains(&name))?;
    Some(Word::Value(flag.names[0], value))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: &[Flag] = &[
        Flag::switch(&["-c", "--compact"]),
        Flag::value(&["-s", "--selector"], "x --selector", "x --selector <sel>"),
    ];

    fn words(line: &'static [&'static str]) -> Result<Vec<Word<'static>>, ParseError> {
        scan(line, FLAGS).collect()
    }

    #[test]
    fn flags_are_named_by_their_first_word_and_take_the_next_word_as_value() {
        assert_eq!(
            words(&["--compact", "--selector", "-c", "pos", "-s", "#a"]).expect("parses"),
            [
                Word::Switch("-c"),
                Word::Value("-s", "-c"),
                Word::Other("pos"),
                Word::Value("-s", "#a"),
            ]
        );
    }

    #[test]
    fn a_lenient_flag_takes_only_a_value_it_accepts_and_never_fails() {
        const LENIENT: &[Flag] = &[
            Flag::lenient(&["-d", "--depth"], |w| w.parse::<i64>().is_ok()),
            Flag::switch(&["-c"]),
        ];
        let words: Vec<Word<'_>> = scan(&["--depth", "3", "-d", "-c", "x", "-d"], LENIENT)
            .collect::<Result<_, _>>()
            .expect("never fails");
        assert_eq!(
            words,
            [
                Word::Value("-d", "3"),
                Word::Switch("-d"),
                Word::Switch("-c"),
                Word::Other("x"),
                Word::Switch("-d"),
            ]
        );
    }

    #[test]
    fn only_an_inline_flag_reads_name_equals_value() {
        const INLINE: &[Flag] = &[
            Flag::lenient(&["--port", "-p"], |_| true).inline(),
            Flag::value(&["--origins"], "x --origins", "x --origins <o>"),
            Flag::switch(&["--quiet"]).inline(),
        ];
        let words: Vec<Word<'_>> = scan(
            &[
                "--port=80",
                "-p=",
                "--port=a=b",
                "--origins=o",
                "--quiet=1",
                "--portx=1",
                "--port",
            ],
            INLINE,
        )
        .collect::<Result<_, _>>()
        .expect("parses");
        assert_eq!(
            words,
            [
                Word::Value("--port", "80"),
                Word::Value("--port", ""),
                Word::Value("--port", "a=b"),
                Word::Other("--origins=o"),
                Word::Other("--quiet=1"),
                Word::Other("--portx=1"),
                Word::Switch("--port"),
            ]
        );
    }

    #[test]
    fn a_missing_value_reports_the_flags_context_and_usage() {
        let err = words(&["-c", "-s"]).expect_err("no value");
        assert_eq!(
            err,
            ParseError::missing("x --selector", "x --selector <sel>")
        );
    }

    #[test]
    fn errors_come_in_word_order() {
        // The unknown flag comes first: a caller that refuses it never sees the missing value.
        let mut scan = scan(&["--bogus", "-s"], FLAGS);
        assert_eq!(scan.next(), Some(Ok(Word::Other("--bogus"))));
        assert!(matches!(scan.next(), Some(Err(_))));
    }

    #[test]
    fn refused_words_read_as_upstreams_errors() {
        assert_eq!(
            Word::Other("--bogus").refused("u").to_string(),
            ParseError::invalid("Unknown flag: --bogus", "u").to_string()
        );
        assert_eq!(
            Word::Other("extra").refused("u").to_string(),
            ParseError::invalid("Unexpected argument: extra", "u").to_string()
        );
    }
}
