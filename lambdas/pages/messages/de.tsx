import type { TextField } from '../form-fields';
import type { ErrorPageMessages, Messages, ReviewMessages, ShellMessages, WizardStepMessages } from './en';
import type { Formats } from './format';
import { formatsFor } from './format';
import { PartnerLink } from './partner-link';

/** The host pages in German (formal: Sie). */
export function de(): Messages {
  const f = formatsFor('de');
  return { ...shell(), ...wizardSteps(f), ...review(f), ...errorPages(f) };
}

/** The frame of every host page, the marketplace, the wizard's frame and the choice between two setups. */
function shell(): ShellMessages {
  return {
    sponsoredBy: 'Gesponsert von',
    languageSwitch: 'Sprache',
    progressLabel: 'Fortschritt',
    stageProducts: 'Produkte',
    stageDone: 'Fertig',
    backTo: (partner) => `Zurück zu ${partner}`,

    marketplaceTitle: 'Wählen Sie Ihre Produkte',
    welcomeHeading: (name) => `Willkommen, ${name}`,
    marketplaceLead: (partner) =>
      `${partner} sponsert Ihr Konto: Wählen Sie die Produkte aus, die Sie aktivieren möchten. Es fallen für Sie keine Kosten an.`,
    noProductsOffered: (partner) =>
      `Keines der Produkte in diesem Link gehört noch zum Angebot von ${partner}. Bitten Sie ${partner} um einen neuen Link.`,
    productsFor: (email) => `Produkte für ${email}`,
    activateSelected: 'Ausgewählte Produkte aktivieren',
    onlyListedProducts:
      'Aktivieren lassen sich nur die hier aufgeführten Produkte. Bitte wählen Sie unter diesen aus.',
    chooseAtLeastOne: 'Wählen Sie mindestens ein Produkt aus, das aktiviert werden soll.',
    propertyTakenTitle: 'Diese Unterkunft ist bereits eingerichtet',
    propertyTaken: (partner) =>
      `${partner} hat diese Unterkunft bereits für ein anderes Konto eingerichtet. Bitten Sie ${partner}, die E-Mail-Adresse in Ihrem Link zu prüfen. Es wurde nichts geändert.`,

    saveAndContinue: 'Speichern und weiter',
    backButton: 'Zurück',
    savedOnContinue: 'Jeder Schritt wird gespeichert, sobald Sie weiter- oder zurückgehen.',
    pleaseCheck: 'Bitte prüfen Sie:',

    sessionChoiceTitle: 'Sie haben eine Einrichtung begonnen',
    sessionChoiceCurrent: (current, partner) =>
      `In diesem Browser läuft eine Einrichtung mit ${partner} für ${current}.`,
    sessionChoiceNew: (name) =>
      `Der Link, den Sie gerade geöffnet haben, ist für ${name}. Wenn Sie mit ihm beginnen, endet die laufende Einrichtung in diesem Browser; was sie gespeichert hat, bleibt gespeichert.`,
    sessionDoneTitle: 'Sie haben in diesem Browser eine Einrichtung abgeschlossen',
    sessionDoneCurrent: (current, partner) =>
      `In diesem Browser wurde die Einrichtung mit ${partner} für ${current} abgeschlossen.`,
    sessionDoneNew: (name) =>
      `Der Link, den Sie gerade geöffnet haben, ist für ${name}. Wenn Sie mit ihm beginnen, bleibt die abgeschlossene Einrichtung, wie sie ist; ihre Antworten können Sie später über ihren eigenen Link ändern.`,
    openMySetup: 'Meine abgeschlossene Einrichtung öffnen',
    continueMySetup: 'Meine Einrichtung fortsetzen',
    startWithNewLink: 'Mit dem neuen Link beginnen',
  };
}

/** The wizard's steps (property and check-in, questions, offers): their labels, hints and errors. */
function wizardSteps(f: Formats): WizardStepMessages {
  const n = f.number;
  return {
    detailsTitle: 'Ihre Unterkunft und der Check-in',
    detailsStage: 'Unterkunft',
    propertyName: 'Name der Unterkunft',
    checkinInstructions: 'Check-in-Hinweise',
    propertyNameHelp: (partner) =>
      `Der Name, unter dem Gäste die Unterkunft kennen. Er beginnt mit dem Namen, den ${partner} uns für Sie genannt hat: Ändern Sie ihn, wenn es nicht der Name der Unterkunft ist.`,
    checkinHelp:
      'Was Gäste bei der Ankunft brauchen: Uhrzeit, Hinweise zur Adresse, Schlüssel oder Codes, Parken.',
    errorPropertyName: (max) => `Name der Unterkunft: Geben Sie 1 bis ${n(max)} Zeichen in einer Zeile ein.`,
    errorCheckin: (min, max) =>
      `Check-in-Hinweise: Geben Sie ${n(min)} bis ${n(max)} Zeichen ein, z. B. wo die Schlüssel liegen und ab wann der Check-in möglich ist.`,
    errorCheckinCharacters:
      'Check-in-Hinweise: Entfernen Sie die unsichtbaren Steuer- oder Textrichtungszeichen (Zeilenumbrüche und Tabulatoren sind erlaubt).',

    faqsTitle: 'Häufige Fragen Ihrer Gäste',
    faqsStage: 'Fragen',
    faqsIntro:
      'Tragen Sie die Fragen ein, die Gäste am häufigsten stellen, jeweils mit Ihrer Antwort. Leere Zeilen werden ignoriert.',
    addAnotherQuestion: 'Weitere Frage hinzufügen',
    questionNumber: (number) => `Frage ${n(number)}`,
    questionLabel: 'Frage',
    answerLabel: 'Antwort',
    errorFaqIncomplete: (number) =>
      `Frage ${n(number)}: Füllen Sie sowohl die Frage als auch die Antwort aus.`,
    errorFaqTooLong: (number, questionMax, answerMax) =>
      `Frage ${n(number)}: Fragen dürfen höchstens ${n(questionMax)} und Antworten höchstens ${n(answerMax)} Zeichen lang sein.`,
    errorFaqQuestionLine: (number) =>
      `Frage ${n(number)}: Schreiben Sie die Frage in eine Zeile, ohne Steuer- oder Textrichtungszeichen.`,
    errorFaqAnswerCharacters: (number) =>
      `Frage ${n(number)}: Entfernen Sie die unsichtbaren Steuer- oder Textrichtungszeichen aus der Antwort (Zeilenumbrüche und Tabulatoren sind erlaubt).`,
    errorFaqNone:
      'Tragen Sie mindestens eine Frage ein, die Ihre Gäste häufig stellen, mit der passenden Antwort.',
    errorFaqTooMany: (max) => `Tragen Sie höchstens ${n(max)} Fragen ein.`,

    upsellsTitle: 'Angebote für Ihre Gäste',
    upsellsStage: 'Angebote',
    upsellsIntro:
      'Extras, die Gäste vor oder während ihres Aufenthalts buchen können, etwa einen frühen Check-in oder eine Abholung vom Flughafen. Sie können diesen Schritt leer lassen.',
    offerNumber: (number) => `Angebot ${n(number)}`,
    offerTitle: 'Titel',
    offerDescription: 'Beschreibung',
    addAnotherOffer: 'Weiteres Angebot hinzufügen',
    guestPrice: 'Preis für Gäste',
    priceHint: (examples) => `Eine Zahl, z. B. ${examples[0]} oder ${examples[1]}.`,
    currencyLabel: 'Währung',
    errorOfferTitle: (number, max) =>
      `Angebot ${n(number)}: Geben Sie einen Titel mit höchstens ${n(max)} Zeichen in einer Zeile ein, ohne Steuer- oder Textrichtungszeichen.`,
    errorOfferDescription: (number, max) =>
      `Angebot ${n(number)}: Die Beschreibung darf höchstens ${n(max)} Zeichen lang sein.`,
    errorOfferDescriptionCharacters: (number) =>
      `Angebot ${n(number)}: Entfernen Sie die unsichtbaren Steuer- oder Textrichtungszeichen aus der Beschreibung (Zeilenumbrüche und Tabulatoren sind erlaubt).`,
    errorOfferPrice: (number, examples) =>
      `Angebot ${n(number)}: Geben Sie den Preis für Gäste als Zahl ein, z. B. ${examples[0]} oder ${examples[1]}.`,
    errorOfferPriceNegative: (number) =>
      `Angebot ${n(number)}: Ein Preis kann nicht unter null liegen; geben Sie 0 ein, wenn das Angebot kostenlos ist.`,
    errorOfferPriceDecimals: (number, example) =>
      `Angebot ${n(number)}: Ein Preis hat höchstens zwei Nachkommastellen, z. B. ${example}.`,
    errorOfferPriceTooHigh: (number, max) => `Angebot ${n(number)}: Ein Angebot kostet höchstens ${max}.`,
    errorOfferCurrency: (number) => `Angebot ${n(number)}: Wählen Sie eine Währung.`,
    errorOfferTooMany: (max) => `Tragen Sie höchstens ${n(max)} Angebote ein.`,
  };
}

/** The review step and the closing page. */
function review(f: Formats): ReviewMessages {
  const n = f.number;
  return {
    reviewTitle: 'Prüfen und abschließen',
    reviewStage: 'Prüfen',
    activeProducts: (products) => `Aktive Produkte: ${f.list(products)}.`,
    reviewCheckin: f.same('Check-in'),
    notFilledIn: (step) => `Noch nicht ausgefüllt (Schritt ${n(step)}).`,
    missingCheckin: (step) => `Die Check-in-Hinweise fehlen (Schritt ${n(step)}).`,
    reviewQuestions: (count) => `Fragen (${n(count)})`,
    missingFaqs: (step) => `Tragen Sie mindestens eine Frage mit Antwort ein (Schritt ${n(step)}).`,
    reviewOffers: (count) => `Angebote (${n(count)})`,
    noOffers: 'Keine Angebote: Gäste sehen keine.',
    offerSummary: (offer) => (
      <>
        <strong>{offer.title}</strong>, {offer.price}
        {offer.description ? `: ${offer.description}` : '.'}
      </>
    ),
    changeLater: (partner) =>
      `Wenn Sie Ihre Antworten später ändern möchten, bitten Sie ${partner} um einen neuen Aktivierungslink: Er führt Sie erneut durch diese Schritte, mit Ihren gespeicherten Antworten.`,
    finishSetup: 'Einrichtung abschließen',
    saveChanges: 'Änderungen speichern',

    doneTitle: 'Alles ist eingerichtet',
    setupComplete: 'Ihre Einrichtung ist abgeschlossen.',
    nowActive: (products, property) => `Jetzt aktiv für ${property}: ${f.list(products)}.`,
    knowledgeSummary: (known, property) => `Er kennt ${f.list(known)} für ${property}.`,
    knowledgeOnItsWay: (known, property) =>
      `Sobald Ihre Antworten gesendet sind, kennt er ${f.list(known)} für ${property}. Laden Sie die Seite neu, um zu sehen, wann es so weit ist.`,
    answersOnTheirWay: (product) => `Ihre Antworten sind unterwegs zu „${product}“.`,
    unsentChanges:
      'Sie haben Antworten geändert, nachdem Sie sie zuletzt gesendet haben: Die Änderungen sind hier gespeichert, aber noch nicht gesendet.',
    reviewAndSend: 'Prüfen und senden',
    changeAnswers: 'Antworten ändern',
    knownCheckin: 'die Check-in-Hinweise',
    knownAnswers: (count) => f.plural(count, { one: '# Antwort', other: '# Antworten' }),
    knownOffers: (count) => f.plural(count, { one: '# Angebot', other: '# Angebote' }),
    closeTab: (partner, website) => (
      <>
        Sie können diesen Tab schließen und zu <PartnerLink name={partner} website={website} /> zurückkehren.
      </>
    ),
  };
}

/** The pages that say why a link, a session or a form cannot be used, and the web firewall's 429 page. */
function errorPages(f: Formats): ErrorPageMessages {
  const n = f.number;
  return {
    linkMalformedTitle: 'Dieser Link ist unvollständig',
    linkMalformed:
      'Der Aktivierungslink ist beschädigt oder wurde beim Kopieren abgeschnitten, daher können wir ihn nicht lesen.',
    linkTamperedTitle: 'Dieser Link wurde verändert',
    linkTampered:
      'Ein Teil des Aktivierungslinks wurde nach seiner Erstellung verändert, daher können wir ihm nicht vertrauen.',
    linkForeignTitle: 'Dieser Link gehört zu einer anderen Plattform',
    linkForeign:
      'Dieser Aktivierungslink wurde von einer anderen Plattform erstellt als der in seiner Adresse genannten und kann hier nicht verwendet werden.',
    linkInvalidTitle: 'Dieser Link ist ungültig',
    linkInvalid:
      'Der Aktivierungslink enthält nicht die Angaben, die wir zum Einrichten Ihres Kontos brauchen.',
    linkExpiredTitle: 'Dieser Link ist abgelaufen',
    linkExpired: (expiredAtMs) =>
      expiredAtMs === undefined
        ? 'Aktivierungslinks gelten nur für begrenzte Zeit.'
        : `Aktivierungslinks gelten nur für begrenzte Zeit; dieser ist am ${f.dateTime(expiredAtMs)} abgelaufen.`,
    linkUsedTitle: 'Dieser Link wurde bereits verwendet',
    linkUsed:
      'Mit diesem Aktivierungslink wurde bereits ein Konto eingerichtet. Jeder Link funktioniert nur einmal.',
    linkUsedNext: (partner) => (
      <>
        Wenn Sie Ihr Konto damit eingerichtet haben, ist hier nichts weiter zu tun. Andernfalls{' '}
        <strong>bitten Sie {partner} um einen neuen Link</strong> und teilen Sie mit, dass dieser in einem
        anderen Browser verwendet wurde.
      </>
    ),
    linkFreshNext: (partner) => (
      <>
        <strong>Bitten Sie {partner} um einen neuen Link:</strong> Sagen Sie, dass dieser nicht funktioniert
        hat; {partner} lässt dann einen neuen für Sie erstellen. Diesen Link erneut zu öffnen, hilft nicht.
        Mit diesem Link wurde nichts eingerichtet.
      </>
    ),
    unknownPartnerTitle: 'Dieser Link ist ungültig',
    unknownPartner:
      'Die Adresse dieses Aktivierungslinks nennt keine Plattform, die wir kennen. Bitten Sie die Plattform, von der Sie den Link haben, um einen neuen.',
    partnerUnavailableTitle: 'Derzeit nicht verfügbar',
    partnerUnavailable: (partner) =>
      `Die Aktivierung über ${partner} ist derzeit nicht verfügbar, daher wurde nichts eingerichtet. Bitte versuchen Sie es später erneut oder wenden Sie sich an ${partner}.`,
    setupEndedTitle: 'Diese Einrichtung ist nicht mehr verfügbar',
    setupEnded: (partner) =>
      `${partner} unterstützt diese Unterkunft nicht mehr, daher wurde hier nichts gespeichert. Wenn Sie das nicht erwartet haben, fragen Sie ${partner} danach oder nach einem neuen Aktivierungslink.`,
    sessionEndedTitle: 'Ihre Sitzung ist abgelaufen',
    sessionEnded: (partner) =>
      `Zu Ihrer Sicherheit wurde diese Einrichtungssitzung beendet. Öffnen Sie den Aktivierungslink von ${partner} erneut; ist er abgelaufen, bitten Sie ${partner} um einen neuen Link.`,
    formExpiredTitle: 'Dieses Formular ist abgelaufen',
    formExpired:
      'Das Formular konnte nicht geprüft werden (vielleicht stammt es von einer älteren Seite). Gehen Sie zurück, laden Sie die Seite neu und senden Sie es erneut.',
    formTooLargeTitle: 'Ihr Text ist zu lang',
    formTooLarge: 'Es wurde nichts gespeichert: Ihre Eingabe ist länger, als dieses Formular zulässt.',
    formTooManyEntries: 'Sie enthält mehr Einträge, als das Formular anzeigt.',
    formTooLargeNext: 'Gehen Sie zurück, kürzen Sie den Text und senden Sie das Formular erneut.',
    overlongField: (field, length, max) =>
      `${FIELD_NAMES[field]} hat ${n(length)} Zeichen; erlaubt sind höchstens ${n(max)}.`,
    tryAgainTitle: 'Bitte versuchen Sie es gleich noch einmal',
    tryAgain:
      'Dieser Schritt ließ sich gerade nicht abschließen. Es ist nichts verloren gegangen: Gehen Sie zurück und senden Sie erneut, oder laden Sie diese Seite in ein paar Sekunden neu.',
    faultTitle: 'Etwas ist schiefgelaufen',
    faultDetail: (reference) => (
      <>
        Das ist ein Fehler auf unserer Seite, und es wurde nichts geändert. Versuchen Sie es in ein paar
        Minuten erneut; besteht das Problem weiter, wenden Sie sich bitte unter Angabe der Referenz{' '}
        <code>{reference}</code> an uns.
      </>
    ),

    firewallTitle: 'Zu viele Anfragen aus Ihrem Netzwerk',
    firewallWhat: 'Diese Seiten wurden aus Ihrem Netzwerk zu oft aufgerufen und sind für Sie kurz pausiert.',
    firewallNext: (wait) =>
      `Warten Sie ${wait} und laden Sie die Seite dann neu. Ihr Link funktioniert weiterhin; ein gerade gesendetes Formular wurde nicht gespeichert: Senden Sie es danach erneut.`,
  };
}

const FIELD_NAMES: Record<TextField, string> = {
  property_name: 'Der Name der Unterkunft',
  checkin_instructions: 'Der Text der Check-in-Hinweise',
  question: 'Eine Frage',
  answer: 'Eine Antwort',
  title: 'Ein Angebotstitel',
  description: 'Eine Angebotsbeschreibung',
};
