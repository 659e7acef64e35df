/**
 * Strings that are a number's text ("12.5", "-3", "1e6", with spaces around): the profiler counts them per path and
 * mixed-types' experiment converts them, so both read the same strings as numbers. One pattern, three uses.
 */
const NUMBER = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;

/** A number's text, spaces around allowed. */
export const NUMBER_TEXT = new RegExp(String.raw`^\s*${NUMBER}\s*$`);
/** Blank ('' or spaces) or a number's text: the profiler's one test per short string (its hot path). */
export const BLANK_OR_NUMBER_TEXT = new RegExp(String.raw`^\s*(?:${NUMBER})?\s*$`);
/** An integer's text as `$convert` reads one to int or long: digits with a sign, nothing around them. */
export const INTEGER_TEXT = /^[-+]?\d+$/;
