/**
 * English irregular verbs, base / past / past participle: forms no stemmer joins ("went" and
 * "go", "bought" and "buy", "wrote" and "write", "broke" and "break"). Recall and routing read
 * each form's other forms as alternatives (text.ts), so "when did she go camping" finds "we went
 * camping" and "who broke the build" finds "breaks the build". Verbs with a form that is also a
 * common word in software are left out (left, found, bound, set, string, spring, feed, fly, lead,
 * mean, ring, sink, light, saw, ...): "404 not found" must not look for "find".
 */
const VERBS = `
arise arose arisen|awake awoke awoken|be was were been|beat beat beaten|become became become|begin began begun
blow blew blown|break broke broken|bring brought|build built|burn burnt|buy bought|catch caught|choose chose chosen
come came come|do did done|draw drew drawn|dream dreamt|drink drank drunk|eat ate eaten|flee fled
forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|freeze froze frozen|get got gotten
give gave given|go went gone|grow grew grown|have had|hear heard|hide hid hidden|keep kept|know knew known
learn learnt|lose lost|make made|meet met|mislead misled|overcome overcame overcome|pay paid|prove proven
rebuild rebuilt|redo redid redone|rerun reran|rewrite rewrote rewritten|ride rode ridden|run ran run|say said
seek sought|send sent|shake shook shaken|sing sang sung|sit sat|sleep slept|speak spoke spoken|spend spent
steal stole stolen|sweep swept|swim swam swum|take took taken|teach taught|tell told|think thought
throw threw thrown|understand understood|undo undid undone|wake woke woken|win won|withdraw withdrew withdrawn
write wrote written`;

/**
 * The verbs as one string, "| arise arose arisen | awake awoke awoken | ... |": each form between
 * spaces. A lookup searches it (native, microseconds); building a map of every form cost a cold
 * prompt hook a millisecond.
 */
const LIST = `| ${VERBS.trim().replaceAll("\n", "|").replaceAll("|", " | ")} |`;

/** The other forms of an irregular verb form ("went" -> go, gone), or undefined. */
export function irregularForms(word: string): string[] | undefined {
  if (!word || word.includes(" ") || word.includes("|")) return undefined;
  const key = ` ${word} `;
  const out: string[] = [];
  for (let at = LIST.indexOf(key); at >= 0; at = LIST.indexOf(key, at + 1)) {
    const verb = LIST.slice(LIST.lastIndexOf("|", at) + 1, LIST.indexOf("|", at + 1));
    for (const form of verb.trim().split(" ")) if (form !== word && !out.includes(form)) out.push(form);
  }
  return out.length ? out : undefined;
}
