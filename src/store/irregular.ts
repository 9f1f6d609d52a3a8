/**
 * English irregular verbs, base / past / past participle: forms no stemmer joins ("went" and
 * "go", "bought" and "buy", "wrote" and "write", "broke" and "break"). Recall and routing read
 * each form's other forms as alternatives (text.ts), so "when did she go camping" finds "we went
 * camping" and "who broke the build" finds "breaks the build".
 */
const VERBS = `
arise arose arisen|awake awoke awoken|be was were been|bear bore borne|beat beat beaten|become became become
begin began begun|bend bent|bet bet|bind bound|bite bit bitten|bleed bled|blow blew blown|break broke broken
breed bred|bring brought|build built|burn burnt|burst burst|buy bought|catch caught|choose chose chosen
cling clung|come came come|cost cost|creep crept|cut cut|deal dealt|dig dug|do did done|draw drew drawn
dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought
find found|flee fled|fling flung|fly flew flown|forbid forbade forbidden|forget forgot forgotten
forgive forgave forgiven|freeze froze frozen|get got gotten|give gave given|go went gone|grind ground
grow grew grown|hang hung|have had|hear heard|hide hid hidden|hit hit|hold held|hurt hurt|keep kept|kneel knelt
know knew known|lay laid|lead led|lean leant|leap leapt|learn learnt|leave left|lend lent|let let|lie lay lain
light lit|lose lost|make made|mean meant|meet met|mislead misled|overcome overcame overcome|pay paid|prove proven
put put|quit quit|read read|rebuild rebuilt|redo redid redone|rerun reran|rewrite rewrote rewritten|ride rode ridden
ring rang rung|rise rose risen|run ran run|say said|see saw seen|seek sought|sell sold|send sent|set set
shake shook shaken|shine shone|shoot shot|show showed shown|shrink shrank shrunk|shut shut|sing sang sung
sink sank sunk|sit sat|sleep slept|slide slid|speak spoke spoken|speed sped|spend spent|spin spun|split split
spread spread|spring sprang sprung|stand stood|steal stole stolen|stick stuck|sting stung|stink stank stunk
strike struck stricken|string strung|strive strove striven|swear swore sworn|sweep swept|swim swam swum
swing swung|take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown
understand understood|undo undid undone|upset upset|wake woke woken|wear wore worn|weave wove woven|weep wept
win won|wind wound|withdraw withdrew withdrawn|write wrote written`;

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
