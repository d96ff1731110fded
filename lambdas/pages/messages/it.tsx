import type { TextField } from '../form-fields';
import type { ErrorPageMessages, Messages, ReviewMessages, ShellMessages, WizardStepMessages } from './en';
import type { Formats } from './format';
import { formatsFor } from './format';
import { PartnerLink } from './partner-link';

/**
 * The preposition "a" before a name: "ad" before a vowel (euphonic d: "tornare ad Acme PMS"),
 * "a" before anything else ("tornare a Demo PMS").
 */
const a = (name: string) => (/^[aeiouàáèéìíòóùú]/i.test(name.trim()) ? 'ad' : 'a');

/** The host pages in Italian (formal: Lei). */
export function it(): Messages {
  const f = formatsFor('it');
  return { ...shell(), ...wizardSteps(f), ...review(f), ...errorPages(f) };
}

/** The frame of every host page, the marketplace, the wizard's frame and the choice between two setups. */
function shell(): ShellMessages {
  return {
    sponsoredBy: 'Sponsorizzato da',
    languageSwitch: 'Lingua',
    progressLabel: 'Avanzamento',
    stageProducts: 'Prodotti',
    stageDone: 'Fatto',
    backTo: (partner) => `Torna ${a(partner)} ${partner}`,

    marketplaceTitle: 'Scelga i suoi prodotti',
    welcomeHeading: (name) => `Le diamo il benvenuto, ${name}`,
    marketplaceLead: (partner) =>
      `${partner} sponsorizza il suo account: scelga i prodotti da attivare. Non c’è nulla da pagare.`,
    noProductsOffered: (partner) =>
      `Nessuno dei prodotti di questo link fa più parte dell’offerta di ${partner}. Chieda ${a(partner)} ${partner} un nuovo link.`,
    productsFor: (email) => `Prodotti per ${email}`,
    activateSelected: 'Attiva i prodotti selezionati',
    onlyListedProducts: 'Si possono attivare solo i prodotti elencati qui. Scelga tra questi.',
    chooseAtLeastOne: 'Scelga almeno un prodotto da attivare.',
    propertyTakenTitle: 'Questa struttura è già configurata',
    propertyTaken: (partner) =>
      `${partner} ha già configurato questa struttura per un altro account. Chieda ${a(partner)} ${partner} di verificare l’indirizzo e-mail nel suo link. Non è stato modificato nulla.`,

    saveAndContinue: 'Salva e continua',
    backButton: 'Indietro',
    savedOnContinue: 'Ogni passaggio viene salvato quando prosegue o torna indietro.',
    pleaseCheck: 'Controlli quanto segue:',

    sessionChoiceTitle: 'Ha una configurazione in corso',
    sessionChoiceCurrent: (current, partner) => `Questo browser sta configurando ${current} con ${partner}.`,
    sessionChoiceNew: (name) =>
      `Il link che ha appena aperto è per ${name}. Se inizia con questo, la configurazione in corso in questo browser termina; ciò che ha salvato resta salvato.`,
    sessionDoneTitle: 'Ha terminato una configurazione in questo browser',
    sessionDoneCurrent: (current, partner) =>
      `In questo browser è stata terminata la configurazione di ${current} con ${partner}.`,
    sessionDoneNew: (name) =>
      `Il link che ha appena aperto è per ${name}. Se inizia con questo, la configurazione terminata resta com’è; potrà modificarne le risposte più avanti dal suo link.`,
    openMySetup: 'Apri la mia configurazione terminata',
    continueMySetup: 'Continua la mia configurazione',
    startWithNewLink: 'Inizia con il nuovo link',
  };
}

/** The wizard's steps (property and check-in, questions, offers): their labels, hints and errors. */
function wizardSteps(f: Formats): WizardStepMessages {
  const n = f.number;
  return {
    detailsTitle: 'La sua struttura e il check-in',
    detailsStage: 'Struttura',
    propertyName: 'Nome della struttura',
    checkinInstructions: 'Istruzioni per il check-in',
    propertyNameHelp: (partner) =>
      `Il nome con cui gli ospiti conoscono la struttura. All’inizio è il nome che ${partner} ci ha dato per Lei: lo cambi se non è quello della struttura.`,
    checkinHelp:
      'Ciò che serve agli ospiti all’arrivo: orario, dettagli sull’indirizzo, chiavi o codici, parcheggio.',
    errorPropertyName: (max) =>
      `Nome della struttura: inserisca da 1 a ${n(max)} caratteri, su una sola riga.`,
    errorCheckin: (min, max) =>
      `Istruzioni per il check-in: inserisca da ${n(min)} a ${n(max)} caratteri, ad esempio dove si trovano le chiavi e da che ora.`,
    errorCheckinCharacters:
      'Istruzioni per il check-in: rimuova i caratteri invisibili di controllo o di direzione del testo (a capo e tabulazioni sono ammessi).',

    faqsTitle: 'Domande degli ospiti',
    faqsStage: 'Domande',
    faqsIntro:
      'Aggiunga le domande che gli ospiti fanno più spesso, con le sue risposte. Le righe vuote vengono ignorate.',
    addAnotherQuestion: 'Aggiunga un’altra domanda',
    questionNumber: (number) => `Domanda ${n(number)}`,
    questionLabel: 'Domanda',
    answerLabel: 'Risposta',
    errorFaqIncomplete: (number) => `Domanda ${n(number)}: compili sia la domanda sia la risposta.`,
    errorFaqTooLong: (number, questionMax, answerMax) =>
      `Domanda ${n(number)}: le domande non devono superare i ${n(questionMax)} caratteri e le risposte i ${n(answerMax)}.`,
    errorFaqQuestionLine: (number) =>
      `Domanda ${n(number)}: scriva la domanda su una sola riga, senza caratteri di controllo o di direzione del testo.`,
    errorFaqAnswerCharacters: (number) =>
      `Domanda ${n(number)}: rimuova dalla risposta i caratteri invisibili di controllo o di direzione del testo (a capo e tabulazioni sono ammessi).`,
    errorFaqNone: 'Aggiunga almeno una domanda frequente dei suoi ospiti, con la relativa risposta.',
    errorFaqTooMany: (max) => `Aggiunga al massimo ${n(max)} domande.`,

    upsellsTitle: 'Offerte per i suoi ospiti',
    upsellsStage: 'Offerte',
    upsellsIntro:
      'Extra che gli ospiti possono prenotare prima o durante il soggiorno, come il check-in anticipato o il transfer dall’aeroporto. Può lasciare vuoto questo passaggio.',
    offerNumber: (number) => `Offerta ${n(number)}`,
    offerTitle: 'Titolo',
    offerDescription: 'Descrizione',
    addAnotherOffer: 'Aggiunga un’altra offerta',
    guestPrice: 'Prezzo per l’ospite',
    priceHint: (examples) => `Un numero, ad esempio ${examples[0]} o ${examples[1]}.`,
    currencyLabel: 'Valuta',
    errorOfferTitle: (number, max) =>
      `Offerta ${n(number)}: le dia un titolo di massimo ${n(max)} caratteri, su una sola riga, senza caratteri di controllo o di direzione del testo.`,
    errorOfferDescription: (number, max) =>
      `Offerta ${n(number)}: la descrizione non deve superare i ${n(max)} caratteri.`,
    errorOfferDescriptionCharacters: (number) =>
      `Offerta ${n(number)}: rimuova dalla descrizione i caratteri invisibili di controllo o di direzione del testo (a capo e tabulazioni sono ammessi).`,
    errorOfferPrice: (number, examples) =>
      `Offerta ${n(number)}: inserisca il prezzo per l’ospite come numero, ad esempio ${examples[0]} o ${examples[1]}.`,
    errorOfferPriceNegative: (number) =>
      `Offerta ${n(number)}: un prezzo non può essere negativo; inserisca 0 per un’offerta gratuita.`,
    errorOfferPriceDecimals: (number, example) =>
      `Offerta ${n(number)}: un prezzo ha al massimo due decimali, ad esempio ${example}.`,
    errorOfferPriceTooHigh: (number, max) => `Offerta ${n(number)}: un’offerta costa al massimo ${max}.`,
    errorOfferCurrency: (number) => `Offerta ${n(number)}: scelga una valuta.`,
    errorOfferTooMany: (max) => `Aggiunga al massimo ${n(max)} offerte.`,
  };
}

/** The review step and the closing page. */
function review(f: Formats): ReviewMessages {
  const n = f.number;
  return {
    reviewTitle: 'Controlli e concluda',
    reviewStage: 'Riepilogo',
    activeProducts: (products) => `Prodotti attivi: ${f.list(products)}.`,
    reviewCheckin: f.same('Check-in'),
    notFilledIn: (step) => `Non ancora compilato (passaggio ${n(step)}).`,
    missingCheckin: (step) => `Mancano le istruzioni per il check-in (passaggio ${n(step)}).`,
    reviewQuestions: (count) => `Domande (${n(count)})`,
    missingFaqs: (step) => `Aggiunga almeno una domanda con la risposta (passaggio ${n(step)}).`,
    reviewOffers: (count) => `Offerte (${n(count)})`,
    noOffers: 'Nessuna offerta: gli ospiti non ne vedranno.',
    offerSummary: (offer) => (
      <>
        <strong>{offer.title}</strong>, {offer.price}
        {offer.description ? `: ${offer.description}` : '.'}
      </>
    ),
    changeLater: (partner) =>
      `Per modificare le risposte in seguito, chieda ${a(partner)} ${partner} un nuovo link di attivazione: la riporterà a questi passaggi con le risposte che ha salvato.`,
    finishSetup: 'Concludi la configurazione',
    saveChanges: 'Salva le modifiche',

    doneTitle: 'È tutto pronto',
    setupComplete: 'La configurazione è completa.',
    nowActive: (products, property) => `Ora attivo per ${property}: ${f.list(products)}.`,
    knowledgeSummary: (known, property) => `Conosce ${f.list(known)} per ${property}.`,
    knowledgeOnItsWay: (known, property) =>
      `Appena le sue risposte saranno inviate, conoscerà ${f.list(known)} per ${property}. Ricarichi la pagina per vedere quando lo sono.`,
    answersOnTheirWay: (product) => `Le sue risposte stanno arrivando a «${product}».`,
    unsentChanges:
      'Ha modificato alcune risposte dopo averle inviate: le modifiche sono salvate qui, ma non ancora inviate.',
    reviewAndSend: 'Rivedi e invia',
    changeAnswers: 'Modifica le risposte',
    knownCheckin: 'le istruzioni per il check-in',
    knownAnswers: (count) => f.plural(count, { one: '# risposta', other: '# risposte' }),
    knownOffers: (count) => f.plural(count, { one: '# offerta', other: '# offerte' }),
    closeTab: (partner, website) => (
      <>
        Può chiudere questa scheda e tornare {a(partner)} <PartnerLink name={partner} website={website} />.
      </>
    ),
  };
}

/** The pages that say why a link, a session or a form cannot be used, and the web firewall's 429 page. */
function errorPages(f: Formats): ErrorPageMessages {
  const n = f.number;
  return {
    linkMalformedTitle: 'Questo link è incompleto',
    linkMalformed:
      'Il link di attivazione è danneggiato o è stato troncato durante la copia, quindi non riusciamo a leggerlo.',
    linkTamperedTitle: 'Questo link è stato modificato',
    linkTampered:
      'Una parte del link di attivazione è stata modificata dopo la sua creazione, quindi non possiamo considerarlo affidabile.',
    linkForeignTitle: 'Questo link è di un’altra piattaforma',
    linkForeign:
      'Questo link di attivazione è stato creato da una piattaforma diversa da quella indicata nel suo indirizzo, quindi non può essere usato qui.',
    linkInvalidTitle: 'Questo link non è valido',
    linkInvalid: 'Il link di attivazione non contiene i dati che ci servono per configurare il suo account.',
    linkExpiredTitle: 'Questo link è scaduto',
    linkExpired: (expiredAtMs) =>
      expiredAtMs === undefined
        ? 'I link di attivazione valgono per un tempo limitato.'
        : `I link di attivazione valgono per un tempo limitato; questo è scaduto il ${f.dateTime(expiredAtMs)}.`,
    linkUsedTitle: 'Questo link è già stato usato',
    linkUsed:
      'Questo link di attivazione è già stato usato per configurare un account. Ogni link funziona una sola volta.',
    linkUsedNext: (partner) => (
      <>
        Se ha configurato il suo account con questo link, qui non c’è altro da fare. Altrimenti{' '}
        <strong>
          chieda {a(partner)} {partner} un nuovo link
        </strong>{' '}
        e segnali che questo è stato usato in un altro browser.
      </>
    ),
    linkFreshNext: (partner) => (
      <>
        <strong>
          Chieda {a(partner)} {partner} un nuovo link:
        </strong>{' '}
        dica che questo non ha funzionato e ne verrà creato uno nuovo per Lei. Riaprire questo non servirà.
        Con questo link non è stato configurato nulla.
      </>
    ),
    unknownPartnerTitle: 'Questo link non è valido',
    unknownPartner:
      'L’indirizzo di questo link di attivazione non corrisponde a nessuna piattaforma che conosciamo. Chieda un nuovo link alla piattaforma che glielo ha inviato.',
    partnerUnavailableTitle: 'Al momento non disponibile',
    partnerUnavailable: (partner) =>
      `L’attivazione tramite ${partner} al momento non è disponibile, quindi non è stato configurato nulla. Riprovi più tardi o si rivolga ${a(partner)} ${partner}.`,
    setupEndedTitle: 'Questa configurazione non è più disponibile',
    setupEnded: (partner) =>
      `${partner} non sponsorizza più questa struttura, quindi qui non è stato salvato nulla. Se non se lo aspettava, chieda spiegazioni ${a(partner)} ${partner} o un nuovo link di attivazione.`,
    sessionEndedTitle: 'La sessione è terminata',
    sessionEnded: (partner) =>
      `Per la sua sicurezza, questa sessione di configurazione è terminata. Apra di nuovo il link di attivazione di ${partner}; se è scaduto, chieda ${a(partner)} ${partner} un nuovo link.`,
    formExpiredTitle: 'Questo modulo è scaduto',
    formExpired:
      'Non è stato possibile verificare il modulo (forse proviene da una pagina precedente). Torni indietro, ricarichi la pagina e lo invii di nuovo.',
    formTooLargeTitle: 'Il testo è troppo lungo',
    formTooLarge: 'Non è stato salvato nulla: quanto inviato supera ciò che questo modulo accetta.',
    formTooManyEntries: 'Contiene più voci di quelle mostrate dal modulo.',
    formTooLargeNext: 'Torni indietro, lo accorci e invii di nuovo il modulo.',
    overlongField: (field, length, max) =>
      `${FIELD_NAMES[field]} ha ${n(length)} caratteri; ne sono ammessi al massimo ${n(max)}.`,
    tryAgainTitle: 'Riprovi tra un momento',
    tryAgain:
      'Non è stato possibile completare questo passaggio in questo momento. Non è andato perso nulla: torni indietro e invii di nuovo, oppure ricarichi la pagina tra qualche secondo.',
    faultTitle: 'Si è verificato un errore',
    faultDetail: (reference) => (
      <>
        Si tratta di un errore da parte nostra e non è stato modificato nulla. Riprovi tra qualche minuto; se
        il problema persiste, ci contatti indicando il riferimento <code>{reference}</code>.
      </>
    ),

    firewallTitle: 'Troppe richieste dalla sua rete',
    firewallWhat:
      'Queste pagine sono state richieste troppe volte dalla sua rete e sono sospese per lei per un momento.',
    firewallNext: (wait) =>
      `Attenda ${wait}, poi ricarichi questa pagina. Il suo link continua a funzionare; se stava inviando un modulo, non è stato salvato: lo invii di nuovo dopo l’attesa.`,
  };
}

const FIELD_NAMES: Record<TextField, string> = {
  property_name: 'Il nome della struttura',
  checkin_instructions: 'Il testo delle istruzioni per il check-in',
  question: 'Una domanda',
  answer: 'Una risposta',
  title: 'Un titolo di offerta',
  description: 'Una descrizione di offerta',
};
