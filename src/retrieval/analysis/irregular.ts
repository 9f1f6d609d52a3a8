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

let table: Map<string, string[]> | undefined;

/** The other forms of an irregular verb form ("went" -> go, gone), or undefined. */
export function irregularForms(word: string): string[] | undefined {
  if (!table) {
    table = new Map();
    for (const verb of VERBS.trim().split(/\s*[|\n]\s*/)) {
      const forms = [...new Set(verb.split(/\s+/))];
      for (const f of forms) {
        const others = forms.filter((o) => o !== f);
        if (others.length) table.set(f, [...new Set([...(table.get(f) ?? []), ...others])]);
      }
    }
  }
  return table.get(word);
}
