import type { TextField } from '../form-fields';
import type { ErrorPageMessages, Messages, ReviewMessages, ShellMessages, WizardStepMessages } from './en';
import type { Formats } from './format';
import { formatsFor } from './format';
import { PartnerLink } from './partner-link';

/** The host pages in French (formal: vous), with a no-break space before `:` and `;`. */
export function fr(): Messages {
  const f = formatsFor('fr');
  return { ...shell(), ...wizardSteps(f), ...review(f), ...errorPages(f) };
}

/** The frame of every host page, the marketplace, the wizard's frame and the choice between two setups. */
function shell(): ShellMessages {
  return {
    sponsoredBy: 'Sponsorisé par',
    languageSwitch: 'Langue',
    progressLabel: 'Progression',
    stageProducts: 'Produits',
    stageDone: 'Terminé',
    backTo: (partner) => `Retour à ${partner}`,

    marketplaceTitle: 'Choisissez vos produits',
    welcomeHeading: (name) => `Bienvenue, ${name}`,
    marketplaceLead: (partner) =>
      `${partner} prend en charge votre compte : choisissez les produits à activer. Vous n’avez rien à payer.`,
    noProductsOffered: (partner) =>
      `Aucun des produits de ce lien ne fait plus partie de l’offre de ${partner}. Demandez un nouveau lien à ${partner}.`,
    productsFor: (email) => `Produits pour ${email}`,
    activateSelected: 'Activer les produits sélectionnés',
    onlyListedProducts: 'Seuls les produits présentés ici peuvent être activés. Choisissez parmi eux.',
    chooseAtLeastOne: 'Choisissez au moins un produit à activer.',
    propertyTakenTitle: 'Ce logement est déjà configuré',
    propertyTaken: (partner) =>
      `${partner} a déjà configuré ce logement pour un autre compte. Demandez à ${partner} de vérifier l’adresse e-mail de votre lien. Rien n’a été modifié.`,

    saveAndContinue: 'Enregistrer et continuer',
    backButton: 'Retour',
    savedOnContinue: 'Chaque étape est enregistrée lorsque vous continuez ou revenez en arrière.',
    pleaseCheck: 'Veuillez vérifier :',

    sessionChoiceTitle: 'Une configuration est en cours',
    sessionChoiceCurrent: (current, partner) =>
      `Ce navigateur est en train de configurer ${current} avec ${partner}.`,
    sessionChoiceNew: (name) =>
      `Le lien que vous venez d’ouvrir est pour ${name}. Commencer avec lui met fin à la configuration en cours dans ce navigateur ; ce qu’elle a enregistré le reste.`,
    sessionDoneTitle: 'Une configuration est terminée dans ce navigateur',
    sessionDoneCurrent: (current, partner) =>
      `Ce navigateur a terminé la configuration de ${current} avec ${partner}.`,
    sessionDoneNew: (name) =>
      `Le lien que vous venez d’ouvrir est pour ${name}. Commencer avec lui laisse la configuration terminée telle quelle ; vous pourrez modifier ses réponses plus tard depuis son propre lien.`,
    openMySetup: 'Ouvrir ma configuration terminée',
    continueMySetup: 'Continuer ma configuration',
    startWithNewLink: 'Commencer avec le nouveau lien',
  };
}

/** The wizard's steps (property and check-in, questions, offers): their labels, hints and errors. */
function wizardSteps(f: Formats): WizardStepMessages {
  const n = f.number;
  return {
    detailsTitle: 'Votre logement et l’arrivée',
    detailsStage: 'Logement',
    propertyName: 'Nom du logement',
    checkinInstructions: 'Instructions d’arrivée',
    propertyNameHelp: (partner) =>
      `Le nom sous lequel les voyageurs connaissent le logement. Il reprend d’abord le nom que ${partner} nous a donné pour vous : changez-le si ce n’est pas celui du logement.`,
    checkinHelp:
      'Ce dont les voyageurs ont besoin à leur arrivée : horaire, précisions sur l’adresse, clés ou codes, stationnement.',
    errorPropertyName: (max) =>
      `Nom du logement : saisissez de 1 à ${n(max)} caractères, sur une seule ligne.`,
    errorCheckin: (min, max) =>
      `Instructions d’arrivée : saisissez de ${n(min)} à ${n(max)} caractères, par exemple où se trouvent les clés et à partir de quelle heure.`,
    errorCheckinCharacters:
      'Instructions d’arrivée : supprimez les caractères invisibles de contrôle ou de direction du texte (les retours à la ligne et les tabulations sont acceptés).',

    faqsTitle: 'Les questions de vos voyageurs',
    faqsStage: f.same('Questions'),
    faqsIntro:
      'Ajoutez les questions que les voyageurs posent le plus souvent, avec vos réponses. Les lignes vides sont ignorées.',
    addAnotherQuestion: 'Ajouter une autre question',
    questionNumber: (number) => `Question ${n(number)}`,
    questionLabel: f.same('Question'),
    answerLabel: 'Réponse',
    errorFaqIncomplete: (number) => `Question ${n(number)} : remplissez la question et sa réponse.`,
    errorFaqTooLong: (number, questionMax, answerMax) =>
      `Question ${n(number)} : les questions ne doivent pas dépasser ${n(questionMax)} caractères, ni les réponses ${n(answerMax)}.`,
    errorFaqQuestionLine: (number) =>
      `Question ${n(number)} : écrivez la question sur une seule ligne, sans caractères de contrôle ou de direction du texte.`,
    errorFaqAnswerCharacters: (number) =>
      `Question ${n(number)} : supprimez de la réponse les caractères invisibles de contrôle ou de direction du texte (les retours à la ligne et les tabulations sont acceptés).`,
    errorFaqNone: 'Ajoutez au moins une question fréquente de vos voyageurs, avec sa réponse.',
    errorFaqTooMany: (max) => `Ajoutez au plus ${n(max)} questions.`,

    upsellsTitle: 'Offres pour vos voyageurs',
    upsellsStage: 'Offres',
    upsellsIntro:
      'Des extras que les voyageurs peuvent réserver avant ou pendant leur séjour, comme une arrivée anticipée ou un transfert depuis l’aéroport. Vous pouvez laisser cette étape vide.',
    offerNumber: (number) => `Offre ${n(number)}`,
    offerTitle: 'Titre',
    offerDescription: f.same('Description'),
    addAnotherOffer: 'Ajouter une autre offre',
    guestPrice: 'Prix pour les voyageurs',
    priceHint: (examples) => `Un nombre, par exemple ${examples[0]} ou ${examples[1]}.`,
    currencyLabel: 'Devise',
    errorOfferTitle: (number, max) =>
      `Offre ${n(number)} : donnez-lui un titre de ${n(max)} caractères au plus, sur une seule ligne, sans caractères de contrôle ou de direction du texte.`,
    errorOfferDescription: (number, max) =>
      `Offre ${n(number)} : la description ne doit pas dépasser ${n(max)} caractères.`,
    errorOfferDescriptionCharacters: (number) =>
      `Offre ${n(number)} : supprimez de la description les caractères invisibles de contrôle ou de direction du texte (les retours à la ligne et les tabulations sont acceptés).`,
    errorOfferPrice: (number, examples) =>
      `Offre ${n(number)} : saisissez le prix pour les voyageurs sous forme de nombre, par exemple ${examples[0]} ou ${examples[1]}.`,
    errorOfferPriceNegative: (number) =>
      `Offre ${n(number)} : un prix ne peut pas être négatif ; saisissez 0 pour une offre gratuite.`,
    errorOfferPriceDecimals: (number, example) =>
      `Offre ${n(number)} : un prix a au plus deux décimales, par exemple ${example}.`,
    errorOfferPriceTooHigh: (number, max) => `Offre ${n(number)} : une offre coûte au plus ${max}.`,
    errorOfferCurrency: (number) => `Offre ${n(number)} : choisissez une devise.`,
    errorOfferTooMany: (max) => `Ajoutez au plus ${n(max)} offres.`,
  };
}

/** The review step and the closing page. */
function review(f: Formats): ReviewMessages {
  const n = f.number;
  return {
    reviewTitle: 'Vérifier et terminer',
    reviewStage: 'Vérification',
    activeProducts: (products) => `Produits actifs : ${f.list(products)}.`,
    reviewCheckin: 'Arrivée',
    notFilledIn: (step) => `Pas encore renseigné (étape ${n(step)}).`,
    missingCheckin: (step) => `Les instructions d’arrivée manquent (étape ${n(step)}).`,
    reviewQuestions: (count) => `Questions (${n(count)})`,
    missingFaqs: (step) => `Ajoutez au moins une question avec sa réponse (étape ${n(step)}).`,
    reviewOffers: (count) => `Offres (${n(count)})`,
    noOffers: 'Aucune offre : les voyageurs n’en verront pas.',
    offerSummary: (offer) => (
      <>
        <strong>{offer.title}</strong>, {offer.price}
        {offer.description ? ` : ${offer.description}` : '.'}
      </>
    ),
    changeLater: (partner) =>
      `Pour modifier vos réponses plus tard, demandez à ${partner} un nouveau lien d’activation : il vous ramène à ces étapes avec les réponses que vous avez enregistrées.`,
    finishSetup: 'Terminer la configuration',
    saveChanges: 'Enregistrer mes modifications',

    doneTitle: 'Tout est prêt',
    setupComplete: 'Votre configuration est terminée.',
    nowActive: (products, property) => `Désormais actif pour ${property} : ${f.list(products)}.`,
    knowledgeSummary: (known, property) => `Il connaît ${f.list(known)} pour ${property}.`,
    knowledgeOnItsWay: (known, property) =>
      `Dès que vos réponses seront envoyées, il connaîtra ${f.list(known)} pour ${property}. Rechargez la page pour voir quand elles le sont.`,
    answersOnTheirWay: (product) => `Vos réponses sont en route vers « ${product} ».`,
    unsentChanges:
      'Vous avez modifié des réponses après les avoir envoyées : les modifications sont enregistrées ici, mais pas encore envoyées.',
    reviewAndSend: 'Vérifier et envoyer',
    changeAnswers: 'Modifier vos réponses',
    knownCheckin: 'les instructions d’arrivée',
    knownAnswers: (count) => f.plural(count, { one: '# réponse', other: '# réponses' }),
    knownOffers: (count) => f.plural(count, { one: '# offre', other: '# offres' }),
    closeTab: (partner, website) => (
      <>
        Vous pouvez fermer cet onglet et revenir sur <PartnerLink name={partner} website={website} />.
      </>
    ),
  };
}

/** The pages that say why a link, a session or a form cannot be used, and the web firewall's 429 page. */
function errorPages(f: Formats): ErrorPageMessages {
  const n = f.number;
  return {
    linkMalformedTitle: 'Ce lien est incomplet',
    linkMalformed:
      'Le lien d’activation est endommagé ou a été tronqué lors de sa copie : nous ne pouvons pas le lire.',
    linkTamperedTitle: 'Ce lien a été modifié',
    linkTampered:
      'Une partie du lien d’activation a été modifiée après sa création : nous ne pouvons pas nous y fier.',
    linkForeignTitle: 'Ce lien appartient à une autre plateforme',
    linkForeign:
      'Ce lien d’activation a été créé par une autre plateforme que celle indiquée dans son adresse : il ne peut pas être utilisé ici.',
    linkInvalidTitle: 'Ce lien n’est pas valide',
    linkInvalid:
      'Le lien d’activation ne contient pas les informations nécessaires à la création de votre compte.',
    linkExpiredTitle: 'Ce lien a expiré',
    linkExpired: (expiredAtMs) =>
      expiredAtMs === undefined
        ? 'Les liens d’activation sont valables pendant une durée limitée.'
        : `Les liens d’activation sont valables pendant une durée limitée ; celui-ci a expiré le ${f.dateTime(expiredAtMs)}.`,
    linkUsedTitle: 'Ce lien a déjà été utilisé',
    linkUsed: 'Ce lien d’activation a déjà servi à créer un compte. Chaque lien ne fonctionne qu’une fois.',
    linkUsedNext: (partner) => (
      <>
        Si vous avez créé votre compte avec ce lien, vous n’avez plus rien à faire ici. Sinon,{' '}
        <strong>demandez un nouveau lien à {partner}</strong> et indiquez-lui que celui-ci a été utilisé dans
        un autre navigateur.
      </>
    ),
    linkFreshNext: (partner) => (
      <>
        <strong>Demandez un nouveau lien à {partner} :</strong> dites-lui que celui-ci n’a pas fonctionné, et
        un nouveau lien sera créé pour vous. Rouvrir celui-ci n’y changera rien. Rien n’a été configuré avec
        ce lien.
      </>
    ),
    unknownPartnerTitle: 'Ce lien n’est pas valide',
    unknownPartner:
      'L’adresse de ce lien d’activation ne correspond à aucune plateforme que nous connaissons. Demandez un nouveau lien à la plateforme qui vous l’a envoyé.',
    partnerUnavailableTitle: 'Indisponible pour le moment',
    partnerUnavailable: (partner) =>
      `L’activation via ${partner} est indisponible pour le moment ; rien n’a donc été configuré. Veuillez réessayer plus tard ou vous adresser à ${partner}.`,
    setupEndedTitle: 'Cette configuration n’est plus disponible',
    setupEnded: (partner) =>
      `${partner} ne parraine plus ce logement : rien n’a donc été enregistré ici. Si cela vous surprend, interrogez ${partner} ou demandez-lui un nouveau lien d’activation.`,
    sessionEndedTitle: 'Votre session a pris fin',
    sessionEnded: (partner) =>
      `Pour votre sécurité, cette session de configuration a pris fin. Ouvrez à nouveau le lien d’activation de ${partner} ; s’il a expiré, demandez un nouveau lien à ${partner}.`,
    formExpiredTitle: 'Ce formulaire a expiré',
    formExpired:
      'Le formulaire n’a pas pu être vérifié (il provient peut-être d’une page plus ancienne). Revenez en arrière, rechargez la page et envoyez-le à nouveau.',
    formTooLargeTitle: 'Votre texte est trop long',
    formTooLarge: 'Rien n’a été enregistré : votre envoi est plus long que ce que ce formulaire accepte.',
    formTooManyEntries: 'Il contient plus d’entrées que le formulaire n’en affiche.',
    formTooLargeNext: 'Revenez en arrière, raccourcissez le texte et envoyez à nouveau le formulaire.',
    overlongField: (field, length, max) =>
      `${FIELD_NAMES[field]} compte ${n(length)} caractères ; ${n(max)} au maximum sont acceptés.`,
    tryAgainTitle: 'Veuillez réessayer dans un instant',
    tryAgain:
      'Nous n’avons pas pu terminer cette étape pour le moment. Rien n’a été perdu : revenez en arrière et envoyez à nouveau, ou rechargez cette page dans quelques secondes.',
    faultTitle: 'Une erreur s’est produite',
    faultDetail: (reference) => (
      <>
        Il s’agit d’une erreur de notre côté et rien n’a été modifié. Réessayez dans quelques minutes ; si le
        problème persiste, contactez-nous en indiquant la référence <code>{reference}</code>.
      </>
    ),

    firewallTitle: 'Trop de requêtes depuis votre réseau',
    firewallWhat:
      'Ces pages ont été demandées trop souvent depuis votre réseau ; elles sont suspendues pour vous un instant.',
    firewallNext: (wait) =>
      `Attendez ${wait}, puis rechargez cette page. Votre lien reste valable ; un formulaire que vous envoyiez n’a pas été enregistré : renvoyez-le ensuite.`,
  };
}

const FIELD_NAMES: Record<TextField, string> = {
  property_name: 'Le nom du logement',
  checkin_instructions: 'Le texte des instructions d’arrivée',
  question: 'Une question',
  answer: 'Une réponse',
  title: 'Un titre d’offre',
  description: 'Une description d’offre',
};
