/**
 * The kinds of personal fact a generated conversation plants. Each slot says how a speaker states
 * the fact, how a later turn changes or corrects it, and how questions ask about it. The wording
 * of questions shares only some words with the statements, as in LoCoMo, so lexical search has to
 * work for its hits.
 */

export interface FactSlot {
  key: string;
  /** Noun phrase for "what was X's <noun> before …" questions. */
  noun: string;
  values: readonly string[];
  /** The sentence that states the fact. */
  state(value: string): string;
  /** A later sentence that replaces the value; `changed` for news, `corrected` for a contradiction. */
  update?: { kind: "changed" | "corrected"; state(value: string): string };
  question(name: string): string;
  /** A temporal question about when the fact was stated (answered by the session date). */
  when?(name: string): string;
  /** An open-domain question that needs the fact to answer. */
  inference?(name: string): string;
}

export const FACT_SLOTS: readonly FactSlot[] = [
  {
    key: "dog",
    noun: "dog's name",
    values: ["Pixel", "Biscuit", "Juniper", "Pepper", "Mochi", "Olive", "Rocket", "Waffles", "Nugget"],
    state: (value) => `I adopted a rescue dog last weekend and named her ${value}.`,
    update: {
      kind: "changed",
      state: (value) =>
        `Our old dog moved to my parents' farm for good, so now we have a new puppy called ${value}.`,
    },
    question: (name) => `What is the name of ${name}'s dog?`,
    when: (name) => `When did ${name} adopt a rescue dog?`,
    inference: (name) => `Would ${name} enjoy a hiking trail where pets are welcome? Why?`,
  },
  {
    key: "employer",
    noun: "employer",
    values: [
      "Halden Robotics",
      "Bluefin Analytics",
      "Orchard Health",
      "Tamarind Studios",
      "Northgate Logistics",
      "Quillfeather Press",
      "Sunward Energy",
      "Larkspur Labs",
    ],
    state: (value) => `I finally accepted the offer from ${value}, so I start there next month.`,
    update: {
      kind: "changed",
      state: (value) => `Big news on the work front: I left my job and joined ${value} as a team lead.`,
    },
    question: (name) => `Which company does ${name} work for?`,
    when: (name) => `When did ${name} accept a job offer?`,
  },
  {
    key: "city",
    noun: "home city",
    values: ["Lisbon", "Porto", "Tallinn", "Valencia", "Ghent", "Leipzig", "Bergen", "Ljubljana", "Bologna"],
    state: (value) => `We signed the lease today and we are moving to ${value} at the end of the month.`,
    update: {
      kind: "changed",
      state: (value) => `Plot twist with the flat: we are relocating again, this time to ${value}.`,
    },
    question: (name) => `In which city does ${name} live?`,
    when: (name) => `When did ${name} sign a lease for a new home?`,
  },
  {
    key: "instrument",
    noun: "instrument",
    values: ["cello", "trumpet", "banjo", "harp", "clarinet", "accordion", "ukulele", "oboe"],
    state: (value) => `I started taking ${value} lessons on Thursday evenings.`,
    update: {
      kind: "corrected",
      state: (value) =>
        `Small correction to what I told you before: the evening lessons are for the ${value}, I mixed up the flyers.`,
    },
    question: (name) => `Which instrument is ${name} learning to play?`,
    inference: (name) => `Would ${name} likely enjoy a live chamber music concert? Why?`,
  },
  {
    key: "sister",
    noun: "sister's name",
    values: ["Ingrid", "Rosalind", "Teodora", "Marisol", "Annika", "Beatrix", "Leonie", "Saoirse"],
    state: (value) => `My sister ${value} just opened her first art exhibition downtown.`,
    question: (name) => `What is the name of ${name}'s sister?`,
    when: (name) => `When did the sister of ${name} open an exhibition?`,
  },
  {
    key: "dish",
    noun: "signature dish",
    values: ["mushroom risotto", "lamb tagine", "shakshuka", "pierogi", "ratatouille", "bibimbap", "paella"],
    state: (value) => `I have been cooking ${value} every Sunday and it has become my signature dish.`,
    question: (name) => `What is ${name}'s signature dish?`,
    inference: (name) => `What could ${name} bring to a potluck dinner?`,
  },
  {
    key: "car",
    noun: "car",
    values: [
      "Volvo 240",
      "Fiat Panda",
      "Honda Civic",
      "Mazda MX-5",
      "Subaru Outback",
      "Renault Zoe",
      "Skoda Octavia",
    ],
    state: (value) => `I bought a used ${value}; it is green and makes a funny rattling noise.`,
    update: {
      kind: "changed",
      state: (value) => `I sold the rattling old car and replaced it with a ${value}.`,
    },
    question: (name) => `What car does ${name} drive?`,
    when: (name) => `When did ${name} buy a used car?`,
  },
  {
    key: "book",
    noun: "book",
    values: [
      "The Left Hand of Darkness",
      "Piranesi",
      "The Overstory",
      "Station Eleven",
      "A Gentleman in Moscow",
      "The Remains of the Day",
      "Middlemarch",
      "Kindred",
    ],
    state: (value) => `I am halfway through ${value} and I cannot put it down.`,
    question: (name) => `Which novel is ${name} reading?`,
    inference: (name) => `What kind of gift would suit ${name}, who likes to read?`,
  },
  {
    key: "trip",
    noun: "spring trip destination",
    values: ["Iceland", "Morocco", "Japan", "Patagonia", "Sri Lanka", "Norway", "Georgia", "Vietnam"],
    state: (value) => `We booked a trip to ${value} for the spring holidays.`,
    update: {
      kind: "corrected",
      state: (value) =>
        `Correction about our holiday plans: we are going to ${value} after all, the flights were cheaper.`,
    },
    question: (name) => `Where is ${name} travelling for the spring holidays?`,
    when: (name) => `When did ${name} book the spring holiday trip?`,
  },
  {
    key: "race",
    noun: "marathon",
    values: ["Berlin", "Chicago", "Amsterdam", "Copenhagen", "Dublin", "Prague", "Seville"],
    state: (value) => `I signed up for the ${value} marathon in October.`,
    question: (name) => `Which marathon did ${name} sign up for?`,
    inference: (name) => `Is ${name} likely to be training regularly this year? Why?`,
  },
  {
    key: "allergy",
    noun: "allergy",
    values: ["hazelnuts", "shellfish", "sesame", "kiwi", "mustard", "celery", "lupin"],
    state: (value) => `Turns out I am allergic to ${value}; the doctor confirmed it yesterday.`,
    question: (name) => `What is ${name} allergic to?`,
    inference: (name) => `What should a host avoid serving when ${name} comes to dinner?`,
  },
  {
    key: "garden",
    noun: "balcony plants",
    values: ["cherry tomatoes", "basil", "chili peppers", "strawberries", "lavender", "runner beans"],
    state: (value) => `My balcony garden finally has ${value} growing in it.`,
    question: (name) => `What is growing in ${name}'s balcony garden?`,
  },
  {
    key: "language",
    noun: "language course",
    values: ["Portuguese", "Finnish", "Korean", "Turkish", "Dutch", "Greek", "Swahili", "Polish"],
    state: (value) => `I enrolled in an evening course to learn ${value}.`,
    question: (name) => `Which language is ${name} studying?`,
    when: (name) => `When did ${name} enroll in an evening language course?`,
    inference: (name) => `Which country might ${name} want to visit to practise a new language?`,
  },
  {
    key: "volunteering",
    noun: "volunteering place",
    values: [
      "community food bank",
      "animal shelter",
      "public library",
      "botanical garden",
      "youth football club",
    ],
    state: (value) => `I volunteer at the ${value} on Saturday mornings now.`,
    question: (name) => `Where does ${name} volunteer?`,
  },
];
